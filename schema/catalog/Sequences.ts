import { DateTime, Option, Schema } from "effect"
import { maxLength, minLength } from "../Length.ts"
import { publishDecoded } from "../tools/JsonSchema.ts"

export const MAX_STEPS = 10
export const MAX_VARIANTS = 5
export const MAX_SUBJECT = 200
export const MAX_BODY = 10_000
/** Nylas recommends at most this many messages a day per grant. */
export const PROVIDER_DAILY_CAP = 700
/** Nylas recommends at least this many seconds between two sends of a grant. */
export const PROVIDER_MIN_SPACING = 30

export const SequenceId = Schema.String.pipe(
  Schema.pattern(/^sq_[A-Za-z0-9]{1,40}$/, { message: () => "must be a sequence id (sq_…)" })
).annotations({ description: "The sequence's id (sq_…), from sequence_create" })

export const MailboxId = Schema.String.pipe(
  Schema.pattern(/^mb_[A-Za-z0-9]{1,40}$/, { message: () => "must be a mailbox id (mb_…)" })
).annotations({ description: "A sender mailbox of the workspace (mb_…), added by an operator with brein mailboxes add" })

const ShortId = (what: string) =>
  Schema.String.pipe(
    Schema.pattern(/^[a-z0-9][a-z0-9_-]{0,39}$/, { message: () => `must be a ${what} id: 1–40 lowercase letters, digits, _ or -` })
  )

export const StepId = ShortId("step").annotations({ description: "The step's id, unique in the sequence (s1, follow_up…)" })
export const VariantId = ShortId("variant").annotations({ description: "The variant's id, unique in its step; a is the step's own" })

export const DelayUnit = Schema.Literal("minutes", "hours", "days").annotations({
  description: "The unit of delay: minutes, hours or days"
})
export type DelayUnit = typeof DelayUnit.Type

const Template = (max: number, what: string) =>
  Schema.String.pipe(maxLength(max)).annotations({
    description: `The ${what} template (at most ${max} characters): {{first_name}}, {{first_name|fallback}}, spintax {Hola|Buen día}, ` +
      "{{unsubscribe}} (the unsubscribe text and link)"
  })

export const SubjectTemplate = Template(MAX_SUBJECT, "subject")
export const BodyTemplate = Template(MAX_BODY, "body (plain text)")

export const Variant = Schema.Struct({
  id: VariantId,
  subject: SubjectTemplate,
  body: BodyTemplate
}).annotations({ identifier: "SequenceVariant", description: "An A/B variant of a step: chosen per recipient by a stable hash" })
export type Variant = typeof Variant.Type

export const Step = Schema.Struct({
  id: StepId,
  delay: Schema.Int.pipe(Schema.between(0, 10_000)).annotations({
    description: "Wait this long after the previous step (the first step's delay is 0)"
  }),
  delay_unit: DelayUnit,
  subject: SubjectTemplate,
  body: BodyTemplate,
  variants: Schema.optionalWith(
    Schema.Array(Variant).pipe(Schema.maxItems(MAX_VARIANTS - 1)).annotations({
      description: `More A/B variants besides the step's own (variant a): at most ${MAX_VARIANTS - 1}`
    }),
    { exact: true }
  )
}).pipe(
  Schema.filter((step) => {
    const ids = ["a", ...(step.variants ?? []).map((v) => v.id)]
    const at = ids.findIndex((id, i) => ids.indexOf(id) !== i)
    return at < 0 || { path: ["variants", at - 1, "id"], message: `repeats ${ids[at]}, the id of another variant (a is the step's own)` }
  })
).annotations({ identifier: "SequenceStep" })
export type Step = typeof Step.Type

const Timezone = Schema.String.pipe(
  Schema.filter((tz) => Option.isSome(DateTime.zoneMakeNamed(tz)) || "is not an IANA time zone (America/Santiago)")
).annotations({ description: "IANA time zone of the sending window (America/Santiago, America/Mexico_City)" })

export const Weekday = Schema.Literal("mon", "tue", "wed", "thu", "fri", "sat", "sun")
export type Weekday = typeof Weekday.Type

export const SendingWindow = Schema.Struct({
  start_hour: Schema.Int.pipe(Schema.between(0, 23)).annotations({ description: "First hour of sending (local, 0–23)" }),
  end_hour: Schema.Int.pipe(Schema.between(1, 24)).annotations({ description: "Sending stops at this hour (local, 1–24)" }),
  timezone: Timezone,
  days: Schema.optionalWith(Schema.Array(Weekday).pipe(Schema.minItems(1), Schema.maxItems(7)), {
    default: () => ["mon", "tue", "wed", "thu", "fri"] as const
  }).annotations({ description: "Days of sending (default mon–fri)" })
}).annotations({ identifier: "SendingWindow" })
export type SendingWindow = typeof SendingWindow.Type

export const DEFAULT_UNSUBSCRIBE_TEXT = "Si no deseas recibir más correos, date de baja aquí:"

export const Settings = Schema.Struct({
  sender_identity: Schema.optionalWith(publishDecoded(Schema.Trim.pipe(minLength(2), maxLength(200))), { exact: true })
    .annotations({
      description: "Who sends: the company name shown in every footer (required when any recipient is in Chile)"
    }),
  physical_address: Schema.optionalWith(publishDecoded(Schema.Trim.pipe(maxLength(300))), { exact: true }).annotations({
    description: "The sender's postal address, shown in every footer (CAN-SPAM)"
  }),
  privacy_notice_url: Schema.optionalWith(
    Schema.String.pipe(Schema.pattern(/^https:\/\/\S+$/, { message: () => "must be an https:// URL" }), maxLength(500)),
    { exact: true }
  ).annotations({ description: "The aviso de privacidad (required when any recipient is in Mexico), shown in every footer" }),
  unsubscribe_text: Schema.optionalWith(publishDecoded(Schema.Trim.pipe(minLength(1), maxLength(200))), {
    default: () => DEFAULT_UNSUBSCRIBE_TEXT
  }).annotations({ description: "The words before the unsubscribe link where {{unsubscribe}} stands" }),
  stop_on_reply: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  stop_on_bounce: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  stop_on_unsubscribe: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  daily_cap: Schema.Int.pipe(Schema.between(1, 100_000)).annotations({
    description: `Messages a day at most; preflight requires it within the mailbox's cap (≤ ${PROVIDER_DAILY_CAP})`
  }),
  spacing_seconds: Schema.Int.pipe(Schema.between(0, 86_400)).annotations({
    description: `Seconds between two sends; preflight requires at least ${PROVIDER_MIN_SPACING} and the mailbox's minimum`
  }),
  window: SendingWindow
}).annotations({ identifier: "SequenceSettings" })
export type Settings = typeof Settings.Type

export const SequenceName = publishDecoded(
  Schema.Trim.pipe(minLength(1), maxLength(100)).annotations({
    description: "The sequence's name, unique in the workspace (1–100 characters)"
  })
)

export const Steps = Schema.Array(Step).pipe(
  Schema.minItems(1),
  Schema.maxItems(MAX_STEPS),
  Schema.filter((steps) => {
    const at = steps.findIndex((s, i) => steps.findIndex((t) => t.id === s.id) !== i)
    if (at >= 0) return { path: [at, "id"], message: `repeats ${steps[at]?.id}, the id of an earlier step` }
    const first = steps[0]
    return first === undefined || first.delay === 0 ||
      { path: [0, "delay"], message: "must be 0: the first step goes out when the sequence starts" }
  })
).annotations({ description: `The steps in order, 1–${MAX_STEPS}; each delay is relative to the previous step` })

/** A sequence's definition as stored (sequences.definition) and digested (content_digest). */
export const SequenceDefinition = Schema.Struct({
  name: SequenceName,
  mailbox_id: MailboxId,
  steps: Steps,
  settings: Settings
}).annotations({ identifier: "SequenceDefinition" })
export type SequenceDefinition = typeof SequenceDefinition.Type
export type SequenceDefinitionEncoded = typeof SequenceDefinition.Encoded

export const SequenceStatus = Schema.Literal("draft", "active", "paused", "completed")
export type SequenceStatus = typeof SequenceStatus.Type

export const MERGE_FIELDS = ["first_name", "last_name", "full_name", "title", "company", "region", "country", "email"] as const
export type MergeField = typeof MERGE_FIELDS[number]

/** A recipient's merge fields, from the directory at the time recipients were set. */
export const MergeFields = Schema.Record({ key: Schema.String, value: Schema.String })

export const SuppressionReason = Schema.Literal("unsubscribed", "bounced", "complained", "no_molestar", "repep", "blocked_domain")
export type SuppressionReason = typeof SuppressionReason.Type

export const LawfulBasis = Schema.Literal("consent", "legitimate_interest", "contract", "public_source").annotations({
  description: "Why the workspace may write to these people (Ley 21.719 / LFPDPPP): consent, legitimate_interest, contract or public_source"
})
export type LawfulBasis = typeof LawfulBasis.Type
