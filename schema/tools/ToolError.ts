import { Schema } from "effect"
import { TopicConflict, TopicNotFound } from "../catalog/CerebroErrors.ts"
import { SequenceConflict, SequenceNotFound } from "../catalog/SequenceErrors.ts"
import { CrmRejected, CrmUnavailable } from "../crm/Errors.ts"
import {
  AuditUnavailable,
  CursorRejected,
  Forbidden,
  IdempotencyConflict,
  InsufficientCredits,
  InvalidInput,
  QuoteRefused,
  RateLimited,
  ReadCeilingReached,
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
  ServiceUnavailable,
  ReadCeilingReached,
  QuoteRefused,
  IdempotencyConflict,
  InsufficientCredits,
  TopicNotFound,
  TopicConflict,
  RecordNotFound,
  CrmUnavailable,
  CrmRejected,
  SequenceNotFound,
  SequenceConflict,
  CursorRejected
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
  | TopicNotFound
  | TopicConflict
  | RecordNotFound
  | CrmUnavailable
  | CrmRejected
  | SequenceNotFound
  | SequenceConflict
  | CursorRejected

/** What the budget step may refuse a call with, before or while it is charged. */
export type BudgetError = ReadCeilingReached | QuoteRefused | IdempotencyConflict | InsufficientCredits
