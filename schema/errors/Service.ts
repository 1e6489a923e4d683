import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

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

export class InternalError extends Schema.TaggedError<InternalError>()(
  "InternalError",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {
  static readonly unexpected = new InternalError({ message: "the server failed unexpectedly; the failure is logged" })
}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  {
    message: Schema.String,
    retryAfterSeconds: Schema.Int.annotations({ description: "Try again after this many seconds (also sent as Retry-After)" })
  },
  HttpApiSchema.annotations({ status: 503 })
) {
  static readonly database = new ServiceUnavailable({
    message: "the database is unreachable or restarting; nothing was changed by this request: try again shortly",
    retryAfterSeconds: 2
  })
  /** The server is stopping: it answers nothing more (another instance, or this one restarted, will). */
  static readonly stopping = new ServiceUnavailable({
    message: "the server is stopping; nothing was changed by this request: try again shortly",
    retryAfterSeconds: 2
  })
  /** The server's credentials key cannot be used (missing beside sealed credentials, or not a key): its operator must fix it. */
  static readonly credentialsKey = new ServiceUnavailable({
    message:
      "the server cannot encrypt credentials: its credentials key cannot be used (the server's log says why and how its operator fixes it); nothing was stored: try again once it is fixed",
    retryAfterSeconds: 60
  })
}
