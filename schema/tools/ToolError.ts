import { Schema } from "effect"
import { CrmRejected, CrmUnavailable } from "../crm/Errors.ts"
import { AuditUnavailable, Forbidden, InvalidInput, RateLimited, ServiceUnavailable, ToolFailed, ToolNotFound } from "../Errors.ts"
import { IndicadorValueNotFound, UpstreamUnavailable } from "../upstream/Errors.ts"

/** Every error a tool call may end with, on any surface. Handlers may fail only with these. */
export const ToolError = Schema.Union(
  ToolNotFound,
  InvalidInput,
  Forbidden,
  RateLimited,
  AuditUnavailable,
  ToolFailed,
  UpstreamUnavailable,
  IndicadorValueNotFound,
  ServiceUnavailable,
  CrmUnavailable,
  CrmRejected
)
export type ToolError = typeof ToolError.Type

/** What a handler itself may fail with (the executor adds the rest). */
export type HandlerError =
  | InvalidInput
  | Forbidden
  | RateLimited
  | ToolFailed
  | UpstreamUnavailable
  | IndicadorValueNotFound
  | CrmUnavailable
  | CrmRejected
