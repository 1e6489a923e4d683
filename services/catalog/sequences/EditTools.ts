import { Effect } from "effect"
import {
  SequenceCreateInput,
  SequenceCreateOutput,
  SequenceUpdateInput,
  SequenceUpdateOutput
} from "../../../schema/catalog/SequenceTools.ts"
import { action } from "../../tools/Tool.ts"
import { FAMILY, mailboxOf, sequenceOf, STAGES, versionOf } from "./Access.ts"
import { type SequenceRecord, SequenceStore } from "./SequenceStore.ts"

const common = { family: FAMILY, plan: "free", cost: { kind: "free" }, level: 1, stages: STAGES } as const

const answer = (record: SequenceRecord) => ({
  ...versionOf(record),
  status: record.status,
  steps: record.definition.steps.length
})

export const sequenceCreate = action({
  ...common,
  id: "sequence_create",
  label: "Crear secuencia",
  description: "Creates a draft email sequence (version 1): a name unique in the workspace, a sender mailbox of the workspace, " +
    "steps in order (delay relative to the previous step, subject and body templates with {{variables}}, spintax and optional A/B variants) " +
    "and settings (footer, unsubscribe text, stop rules, daily cap, spacing, sending window). Nothing is sent: a person activates it.",
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  input: SequenceCreateInput,
  output: SequenceCreateOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* mailboxOf(ctx.principal.workspaceId, input.mailbox_id)
      const created = yield* (yield* SequenceStore).create(ctx.principal.workspaceId, input)
      yield* ctx.annotate({
        next_actions: [{
          tool: "sequence_recipients_set",
          reason: "add recipients from a list or people ids",
          input: { sequence_id: created.id }
        }]
      })
      return answer(created)
    })
})

export const sequenceUpdate = action({
  ...common,
  id: "sequence_update",
  label: "Editar secuencia",
  description: "Edits a draft sequence: the fields given replace the current ones whole (steps, settings), the version goes up and " +
    "the content digest is recomputed (an earlier preflight no longer covers it). Only a draft is edited. " +
    "An edit to what the sequence already has answers changed: false and makes no new version, so repeating a call is harmless.",
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: SequenceUpdateInput,
  output: SequenceUpdateOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const record = yield* sequenceOf(ctx.principal.workspaceId, input.sequence_id, true)
      const current = record.definition
      const next = {
        name: input.name ?? current.name,
        mailbox_id: input.mailbox_id ?? current.mailbox_id,
        steps: input.steps ?? current.steps,
        settings: input.settings ?? current.settings
      }
      if (input.mailbox_id !== undefined) yield* mailboxOf(ctx.principal.workspaceId, input.mailbox_id)
      const { changed, record: updated } = yield* (yield* SequenceStore).update(record, next)
      yield* ctx.annotate(
        changed
          ? {
            next_actions: [{
              tool: "sequence_preview",
              reason: "render the edited steps for the recipients",
              input: { sequence_id: updated.id }
            }]
          }
          : { hint: `The sequence already has this content: nothing changed and it is still at version ${updated.version}` }
      )
      return { ...answer(updated), changed }
    })
})
