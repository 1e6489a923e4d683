import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Guidance } from "./Guidance.ts"

/** An unsubscribe link this server did not make, or made for a person the sequence no longer has. */
export class UnsubscribeLinkUnknown extends Schema.TaggedError<UnsubscribeLinkUnknown>()(
  "UnsubscribeLinkUnknown",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of() {
    return new UnsubscribeLinkUnknown({
      message: "this unsubscribe link is not valid: it was altered, or its sequence or person is gone; nothing was changed",
      hint: "Open the link exactly as the message has it, or reply to the message asking to be removed"
    })
  }
}

/** An unsubscribe that could not be committed (the database is away): nothing was changed, and the link works later. */
export class UnsubscribeUnavailable extends Schema.TaggedError<UnsubscribeUnavailable>()(
  "UnsubscribeUnavailable",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 503 })
) {
  static of() {
    return new UnsubscribeUnavailable({
      message: "the unsubscribe could not be recorded now; nothing was changed",
      hint: "Open the link again in a few minutes and confirm, or reply to the message asking to be removed"
    })
  }
}

export const ActivationRefusal = Schema.Literal("not_draft", "version_mismatch", "no_preflight", "preflight_stale", "preflight_blocked")

export class ActivationRefused extends Schema.TaggedError<ActivationRefused>()(
  "ActivationRefused",
  {
    reason: ActivationRefusal,
    message: Schema.String,
    sequenceId: Schema.String,
    version: Schema.Int.annotations({ description: "The sequence's current version" }),
    preflightId: Schema.optionalWith(Schema.String, { exact: true }),
    blockers: Schema.optionalWith(Schema.Array(Schema.Unknown), { exact: true }).annotations({
      description: "The blockers of the latest preflight, as it reported them"
    }),
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 409 })
) {}
