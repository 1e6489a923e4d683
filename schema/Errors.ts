import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

export class ToolNotFound extends Schema.TaggedError<ToolNotFound>()(
  "ToolNotFound",
  { toolId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of(toolId: string) {
    return new ToolNotFound({ toolId, message: `no tool with id "${toolId}"` })
  }
}

export const InputIssue = Schema.Struct({ path: Schema.String, message: Schema.String })

export class InvalidInput extends Schema.TaggedError<InvalidInput>()(
  "InvalidInput",
  { message: Schema.String, issues: Schema.Array(InputIssue) },
  HttpApiSchema.annotations({ status: 422 })
) {}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}

export const ForbiddenReason = Schema.Literal(
  "plan_required",
  "connection_required",
  "connection_not_in_workspace",
  "connection_wrong_connector",
  "in_process_only"
)

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { reason: ForbiddenReason, message: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String, limitBytes: Schema.Int },
  HttpApiSchema.annotations({ status: 413 })
) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  { message: Schema.String, retryAfterSeconds: Schema.Int },
  HttpApiSchema.annotations({ status: 429 })
) {}

export class AuditUnavailable extends Schema.TaggedError<AuditUnavailable>()(
  "AuditUnavailable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

export class ToolFailed extends Schema.TaggedError<ToolFailed>()(
  "ToolFailed",
  { toolId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}
