import { Schema } from "effect"
import { closed } from "../Body.ts"

/** One row of the append-only authorization ledger: a person activated this version of a sequence. */
export const SequenceAuthorization = Schema.Struct({
  id: Schema.String,
  sequence_id: Schema.String,
  sequence_version: Schema.Int.annotations({ description: "The version the person reviewed and activated" }),
  content_digest: Schema.String.annotations({ description: "Digest of the steps and templates that were activated" }),
  recipients_digest: Schema.String.annotations({ description: "Digest of the recipients that were activated" }),
  recipients: Schema.Int.annotations({ description: "Recipients with an email address and not suppressed, at activation" }),
  preflight_id: Schema.String.annotations({ description: "The preflight (without blockers) the activation stood on" }),
  user_id: Schema.String,
  user_email: Schema.String,
  session_id: Schema.String,
  decided_at: Schema.String.annotations({ description: "When the person activated it (ISO-8601)" })
}).annotations({ identifier: "SequenceAuthorization" })
export type SequenceAuthorization = typeof SequenceAuthorization.Type

export const ActivateBody = closed(Schema.Struct({
  version: Schema.Int.pipe(Schema.positive()).annotations({
    description: "The version of the sequence the person reviewed; a newer version is refused",
    message: () => ({ message: "must be a positive integer", override: true })
  })
}))
