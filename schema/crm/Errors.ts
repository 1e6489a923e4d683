import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** The CRM did not answer usefully: it limited the rate past the retries, failed (5xx) or timed out. Nothing is lost; retry later. */
export class CrmUnavailable extends Schema.TaggedError<CrmUnavailable>()(
  "CrmUnavailable",
  {
    reason: Schema.Literal("rate_limited", "unavailable", "timeout"),
    retryAfterSeconds: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Try again after this many seconds" }),
    message: Schema.String,
    hint: Schema.String
  },
  HttpApiSchema.annotations({ status: 503 })
) {}

/** The CRM refused the request itself (a bad or missing token, a request it calls invalid): retrying as is will not help. */
export class CrmRejected extends Schema.TaggedError<CrmRejected>()(
  "CrmRejected",
  {
    status: Schema.Int.annotations({ description: "The CRM's HTTP status" }),
    category: Schema.String.annotations({ description: "The CRM's error category, e.g. INVALID_AUTHENTICATION" }),
    message: Schema.String,
    hint: Schema.String
  },
  HttpApiSchema.annotations({ status: 502 })
) {}
