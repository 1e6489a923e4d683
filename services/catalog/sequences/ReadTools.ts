import { DateTime, Effect, Option } from "effect"
import {
  PreflightResult,
  SequenceGetInput,
  SequenceGetOutput,
  SequencePreflightInput,
  SequencePreviewInput,
  SequencePreviewOutput
} from "../../../schema/catalog/SequenceTools.ts"
import { InvalidInput } from "../../../schema/Errors.ts"
import { newId } from "../../Ids.ts"
import { action } from "../../tools/Tool.ts"
import { countRecipients, FAMILY, mailboxOf, sequenceOf, STAGES, versionOf } from "./Access.ts"
import { Mailboxes } from "./Mailboxes.ts"
import { Preflights } from "./Preflights.ts"
import { renderMessage } from "./Render.ts"
import { checkSequence, RULESET_VERSION, sendable } from "./Rules.ts"
import { SequenceStore } from "./SequenceStore.ts"
import { UnsubscribeLinks } from "./UnsubscribeLinks.ts"

const common = { family: FAMILY, plan: "free", cost: { kind: "free" }, level: 0, stages: STAGES } as const
const reads = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const

export const sequencePreview = action({
  ...common,
  id: "sequence_preview",
  label: "Previsualizar secuencia",
  description: "Renders every step for each recipient exactly as it would be sent (variant and spintax chosen per recipient, stable), " +
    "in pages of recipients: subject, body with footer, length, links, and the problems (missing variables, unresolved tokens, empty subjects).",
  hints: reads,
  input: SequencePreviewInput,
  output: SequencePreviewOutput,
  // On one snapshot: the page's recipients and total are those of the version it names, even beside an edit.
  handler: (input, ctx) =>
    Effect.flatMap(SequenceStore, (store) =>
      store.snapshot(Effect.gen(function* () {
        const record = yield* sequenceOf(ctx.principal.workspaceId, input.sequence_id)
        const { steps, settings } = record.definition
        const chosen = input.step_id === undefined ? steps : steps.filter((s) => s.id === input.step_id)
        if (chosen.length === 0) {
          return yield* InvalidInput.of([{
            path: "input.step_id",
            message: `the sequence has no step ${input.step_id}: ${steps.map((s) => s.id).join(", ")}`
          }])
        }
        const unsubscribe = yield* (yield* UnsubscribeLinks).writer()
        const after = input.cursor === undefined ? 0 : Number(input.cursor.slice(1))
        const [rows, total] = yield* Effect.all([store.recipients(record.id, after, input.limit + 1), store.recipientCount(record.id)])
        const page = rows.slice(0, input.limit)
        const messages = page.flatMap((r) =>
          chosen.map((step) => {
            const m = renderMessage({ sequenceId: record.id, step, recipient: { id: r.personId, fields: r.fields }, settings, unsubscribe })
            return {
              step_id: step.id,
              step: steps.indexOf(step) + 1,
              variant: m.variant,
              recipient_id: r.personId,
              email: r.email,
              sendable: sendable(r),
              suppressed_reason: r.suppressedReason,
              subject: m.subject,
              body: m.body,
              length: m.body.length,
              links: m.links,
              missing: m.missing,
              unresolved: m.unresolved,
              empty_subject: m.subject === ""
            }
          })
        )
        const last = rows.length > input.limit ? page[page.length - 1]?.position : undefined
        return {
          ...versionOf(record),
          total_recipients: total,
          messages,
          with_missing: messages.filter((m) => m.missing.length > 0).length,
          with_unresolved: messages.filter((m) => m.unresolved.length > 0).length,
          empty_subjects: messages.filter((m) => m.empty_subject).length,
          cursor: last === undefined ? null : `p${last}`
        }
      })))
})

export const sequenceGet = action({
  ...common,
  id: "sequence_get",
  label: "Ver secuencia",
  description: "A sequence of the workspace: its definition, status, version and digests, its sender mailbox, a summary of its " +
    "recipients (sendable, without email, suppressed, by country), its latest preflight, and once a person activated it, " +
    "its delivery: recipients and messages by state.",
  hints: reads,
  input: SequenceGetInput,
  output: SequenceGetOutput,
  // On one snapshot: the recipients summary and the delivery are those of the version it names, even beside an edit.
  handler: (input, ctx) =>
    Effect.flatMap(SequenceStore, (store) =>
      store.snapshot(Effect.gen(function* () {
        const record = yield* sequenceOf(ctx.principal.workspaceId, input.sequence_id)
        const mailbox = yield* mailboxOf(ctx.principal.workspaceId, record.definition.mailbox_id)
        const recipients = yield* store.recipients(record.id)
        const latest = yield* (yield* Preflights).latest(record.id)
        const delivery = yield* store.delivery(record.id, record.version)
        return {
          ...versionOf(record),
          status: record.status,
          definition: record.definition,
          mailbox: { id: mailbox.id, email: mailbox.email, display_name: mailbox.displayName },
          recipients: countRecipients(recipients),
          latest_preflight: Option.getOrNull(latest),
          delivery: {
            enrollments: delivery.enrollments,
            sends: delivery.sends,
            last_sent_at: delivery.lastSentAt?.toISOString() ?? null
          },
          created_at: record.createdAt.toISOString(),
          updated_at: record.updatedAt.toISOString(),
          activated_at: record.activatedAt?.toISOString() ?? null
        }
      })))
})

export const sequencePreflight = action({
  ...common,
  id: "sequence_preflight",
  label: "Preflight de estatutos",
  description: "Checks the sequence's current version against the ten compliance rules (sender identity, postal address, unsubscribe, " +
    "regional notices for Chile and Mexico, suppression, honest subjects, spam words and links, volume and window, personalization, " +
    "lawful basis) and records the result with the version and digests it checked. Any blocker keeps a person from activating it.",
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  input: SequencePreflightInput,
  output: PreflightResult,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const workspaceId = ctx.principal.workspaceId
      // Locked, as an edit locks it: the version and digests recorded are those of the recipients checked,
      // and an edit in flight is checked once it has committed.
      const record = yield* sequenceOf(workspaceId, input.sequence_id, true)
      const mailbox = yield* (yield* Mailboxes).find(workspaceId, record.definition.mailbox_id)
      const recipients = yield* (yield* SequenceStore).recipients(record.id)
      const findings = checkSequence({
        sequenceId: record.id,
        unsubscribe: yield* (yield* UnsubscribeLinks).writer(),
        definition: record.definition,
        mailbox: Option.getOrUndefined(mailbox),
        recipients
      })
      const id = yield* newId("pf")
      const checkedAt = DateTime.toDateUtc(yield* DateTime.now)
      const result = yield* (yield* Preflights).save(workspaceId, {
        preflight_id: id,
        ref: `sequence_preflight:${id}`,
        sequence_id: record.id,
        version: record.version,
        content_digest: record.contentDigest,
        recipients_digest: record.recipientsDigest,
        ok: findings.blockers.length === 0,
        blockers: findings.blockers,
        warnings: findings.warnings,
        checked_at: checkedAt.toISOString(),
        ruleset_version: RULESET_VERSION
      })
      yield* ctx.annotate(
        result.ok
          ? { hint: "No blockers: the person can now review and activate this version in the revisar_secuencia card (no tool activates)." }
          : {
            hint:
              `${result.blockers.length} blocker(s): fix them with sequence_update or sequence_recipients_set, then run the preflight again.`
          }
      )
      return result
    })
})
