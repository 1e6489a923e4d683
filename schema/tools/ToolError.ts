import { Schema } from "effect"
import {
  AuditUnavailable,
  Forbidden,
  InvalidInput,
  RateLimited,
  RecordNotFound,
  ServiceUnavailable,
  ToolFailed,
  ToolNotFound
} from "../Errors.ts"
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
  RecordNotFound,
  ServiceUnavailable
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
  | RecordNotFound
