import { Schema } from "effect"
import { maxLength, minLength } from "../Length.ts"
import { publishDecoded } from "../tools/JsonSchema.ts"
import { PersonId } from "./Reveal.ts"
import {
  LawfulBasis,
  MailboxId,
  SequenceDefinition,
  SequenceId,
  SequenceName,
  SequenceStatus,
  Settings,
  StepId,
  Steps,
  SuppressionReason
} from "./Sequences.ts"

export const MAX_RECIPIENTS = 1000
export const MAX_PREVIEW = 500

const Ref = Schema.String.annotations({ description: "Cite this result with this ref" })
const Digest = (what: string) => Schema.String.annotations({ description: `sha256 (hex) of the ${what}` })

export const SequenceCreateInput = SequenceDefinition

export const SequenceCreateOutput = Schema.Struct({
  sequence_id: Schema.String,
  ref: Ref,
  status: SequenceStatus,
  version: Schema.Int,
  content_digest: Digest("canonical definition"),
  recipients_digest: Digest("ordered recipients"),
  steps: Schema.Int
})

export const SequenceUpdateInput = Schema.Struct({
  sequence_id: SequenceId,
  name: Schema.optionalWith(SequenceName, { exact: true }),
  mailbox_id: Schema.optionalWith(MailboxId, { exact: true }),
  steps: Schema.optionalWith(Steps, { exact: true }).annotations({ description: "Replaces every step" }),
  settings: Schema.optionalWith(Settings, { exact: true }).annotations({ description: "Replaces the settings whole" })
}).pipe(
  Schema.filter((input) =>
    input.name !== undefined || input.mailbox_id !== undefined || input.steps !== undefined || input.settings !== undefined ||
    { path: ["steps"], message: "(or name, mailbox_id, settings): give at least one to change" }
  )
)

export const SequenceUpdateOutput = Schema.Struct({
  ...SequenceCreateOutput.fields,
  changed: Schema.Boolean.annotations({
    description: "false when the sequence already had this content: no new version, the same content digest"
  })
})

export const RecipientsSetInput = Schema.Struct({
  sequence_id: SequenceId,
  list_id: Schema.optionalWith(Schema.String.pipe(maxLength(64)), { exact: true }).annotations({
    description: "A saved list of people of the workspace (li_…, from list_save)"
  }),
  person_ids: Schema.optionalWith(Schema.Array(PersonId).pipe(Schema.minItems(1), Schema.maxItems(MAX_RECIPIENTS)), { exact: true })
    .annotations({ description: `People (pe_…) in order, 1–${MAX_RECIPIENTS}; duplicates are dropped` }),
  lawful_basis: Schema.optionalWith(LawfulBasis, { exact: true }).annotations({
    description: "The lawful basis for writing to this batch, recorded per recipient (preflight blocks recipients without one)"
  }),
  source: Schema.optionalWith(publishDecoded(Schema.Trim.pipe(minLength(1), maxLength(200))), { exact: true }).annotations({
    description: "Where the data comes from, recorded per recipient (default: the list, or the Brein directory)"
  })
}).pipe(
  Schema.filter((input) =>
    (input.list_id === undefined) !== (input.person_ids === undefined) ||
    { path: ["list_id"], message: "or person_ids: give exactly one of them" }
  )
)

const Excluded = Schema.Struct({
  person_id: Schema.String,
  full_name: Schema.String,
  email: Schema.NullOr(Schema.String),
  reason: Schema.Union(SuppressionReason, Schema.Literal("no_email")).annotations({
    description: "no_email: the workspace has not revealed this person's email (people_reveal); otherwise why it is suppressed"
  })
})

export const ByCountry = Schema.Struct({ CL: Schema.Int, MX: Schema.Int })

export const RecipientsSetOutput = Schema.Struct({
  sequence_id: Schema.String,
  ref: Ref,
  version: Schema.Int,
  recipients_digest: Digest("ordered recipients"),
  total: Schema.Int.annotations({ description: "Recipients recorded (sendable, suppressed and without email)" }),
  sendable: Schema.Int.annotations({ description: "Recipients with a revealed email that no suppression covers" }),
  no_email: Schema.Int,
  suppressed: Schema.Int,
  duplicates_removed: Schema.Int,
  by_country: ByCountry,
  excluded: Schema.Array(Excluded).annotations({ description: "Recipients that will not be sent to, and why (at most 100 shown)" }),
  source: Schema.String,
  lawful_basis: Schema.NullOr(LawfulBasis)
})

export const SequencePreviewInput = Schema.Struct({
  sequence_id: SequenceId,
  step_id: Schema.optionalWith(StepId, { exact: true }).annotations({ description: "Only this step (default every step)" }),
  limit: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, MAX_PREVIEW)).annotations({ description: `Recipients per page, 1–${MAX_PREVIEW} (default 25)` }),
    { default: () => 25 }
  ),
  cursor: Schema.optionalWith(
    Schema.String.pipe(Schema.pattern(/^p\d{1,7}$/, { message: () => "must be a cursor from a previous page" })),
    {
      exact: true
    }
  ).annotations({ description: "The cursor of the previous page; omit it for the first" })
})

export const PreviewMessage = Schema.Struct({
  step_id: Schema.String,
  step: Schema.Int.annotations({ description: "The step's position, from 1" }),
  variant: Schema.String,
  recipient_id: Schema.String,
  email: Schema.NullOr(Schema.String),
  sendable: Schema.Boolean,
  suppressed_reason: Schema.NullOr(SuppressionReason),
  subject: Schema.String,
  body: Schema.String,
  length: Schema.Int.annotations({ description: "Characters of the body" }),
  links: Schema.Array(Schema.String),
  missing: Schema.Array(Schema.String).annotations({ description: "Variables without a value or a fallback (rendered empty)" }),
  unresolved: Schema.Array(Schema.String).annotations({ description: "Tokens left as written (unknown variables, stray braces)" }),
  empty_subject: Schema.Boolean
})

export const SequencePreviewOutput = Schema.Struct({
  sequence_id: Schema.String,
  ref: Ref,
  version: Schema.Int,
  content_digest: Schema.String,
  recipients_digest: Schema.String,
  total_recipients: Schema.Int,
  messages: Schema.Array(PreviewMessage),
  with_missing: Schema.Int.annotations({ description: "Messages of this page with missing variables" }),
  with_unresolved: Schema.Int.annotations({ description: "Messages of this page with unresolved tokens" }),
  empty_subjects: Schema.Int.annotations({ description: "Messages of this page with an empty subject" }),
  cursor: Schema.NullOr(Schema.String).annotations({ description: "Send it as cursor for the next page; null on the last" })
})

export const SequenceGetInput = Schema.Struct({ sequence_id: SequenceId })
export const SequencePreflightInput = Schema.Struct({ sequence_id: SequenceId })

export const RuleId = Schema.Literal(
  "sender_identity",
  "physical_address",
  "unsubscribe",
  "regional_notice",
  "suppression",
  "subject_honesty",
  "spam_words",
  "volume",
  "personalization",
  "data_basis"
).annotations({ description: "The preflight rule (stable id)" })
export type RuleId = typeof RuleId.Type

export const Finding = Schema.Struct({
  rule: RuleId,
  message: Schema.String.annotations({ description: "What is wrong and how to fix it" }),
  step_id: Schema.optionalWith(Schema.String, { exact: true }),
  variant: Schema.optionalWith(Schema.String, { exact: true }),
  recipient_id: Schema.optionalWith(Schema.String, { exact: true }),
  count: Schema.optionalWith(Schema.Int, { exact: true }).annotations({ description: "How many recipients or messages it covers" })
})
export type Finding = typeof Finding.Type

export const PreflightResult = Schema.Struct({
  preflight_id: Schema.String,
  ref: Ref,
  sequence_id: Schema.String,
  version: Schema.Int,
  content_digest: Schema.String,
  recipients_digest: Schema.String,
  ok: Schema.Boolean.annotations({ description: "No blockers: a person may activate this version" }),
  blockers: Schema.Array(Finding),
  warnings: Schema.Array(Finding),
  checked_at: Schema.String,
  ruleset_version: Schema.String
})
export type PreflightResult = typeof PreflightResult.Type

export const SequenceGetOutput = Schema.Struct({
  sequence_id: Schema.String,
  ref: Ref,
  status: SequenceStatus,
  version: Schema.Int,
  content_digest: Schema.String,
  recipients_digest: Schema.String,
  definition: SequenceDefinition,
  mailbox: Schema.Struct({ id: Schema.String, email: Schema.String, display_name: Schema.String }),
  recipients: Schema.Struct({
    total: Schema.Int,
    sendable: Schema.Int,
    no_email: Schema.Int,
    suppressed: Schema.Int,
    by_country: ByCountry
  }),
  latest_preflight: Schema.NullOr(PreflightResult).annotations({
    description: "The last preflight run; current only when its version equals the sequence's"
  }),
  delivery: Schema.Struct({
    enrollments: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
      description: "Recipients enrolled in this version by state (active, completed, replied, bounced, unsubscribed, suppressed, failed)"
    }),
    sends: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
      description: "Messages of this version by state (pending, sending, sent, cancelled, failed)"
    }),
    last_sent_at: Schema.NullOr(Schema.String)
  }).annotations({ description: "How far the dispatcher got with this version (empty before a person activates it)" }),
  created_at: Schema.String,
  updated_at: Schema.String,
  activated_at: Schema.NullOr(Schema.String)
})
