import { Effect, Option } from "effect"
import { RecipientsSetInput, RecipientsSetOutput } from "../../../schema/catalog/SequenceTools.ts"
import { MAX_RECIPIENTS } from "../../../schema/catalog/SequenceTools.ts"
import { InvalidInput, RecordNotFound } from "../../../schema/Errors.ts"
import { action } from "../../tools/Tool.ts"
import { Lists } from "../empresas/Lists.ts"
import { countRecipients, FAMILY, sequenceOf, sequenceRef } from "./Access.ts"
import { Audience, mergeFieldsOf } from "./Audience.ts"
import type { DigestedRecipient } from "./Digest.ts"
import { SequenceStore } from "./SequenceStore.ts"
import { Suppressions } from "./Suppressions.ts"

const MAX_EXCLUDED_SHOWN = 100

const listPeople = (workspaceId: string, listId: string) =>
  Effect.gen(function* () {
    const lists = yield* Lists
    const found = yield* lists.find(workspaceId, { id: listId })
    if (Option.isNone(found)) {
      return yield* RecordNotFound.of("list", [listId], {
        hint: "Lists belong to a workspace: this one has no list by that id. Save one with list_save (kind people)."
      })
    }
    if (found.value.kind !== "people") {
      return yield* InvalidInput.of([{
        path: "input.list_id",
        message: `list ${listId} holds companies; recipients come from a list of people`
      }])
    }
    const items = yield* lists.items(found.value.id, 0, MAX_RECIPIENTS)
    return { ids: items.slice(0, MAX_RECIPIENTS).map((i) => i.itemId), source: `list:${found.value.id} (${found.value.name})` }
  })

export const sequenceRecipientsSet = action({
  family: FAMILY,
  plan: "free",
  cost: { kind: "free" },
  level: 1,
  stages: ["con_lista"],
  id: "sequence_recipients_set",
  label: "Destinatarios de la secuencia",
  description: `Replaces a draft sequence's recipients with the people of a saved list or the given person ids (up to ${MAX_RECIPIENTS}, ` +
    "order kept). A person's email is used only if the workspace revealed it; people without one and suppressed addresses are kept " +
    "and reported, never sent to. Merge fields come from the directory; source and lawful basis are recorded per recipient.",
  hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: RecipientsSetInput,
  output: RecipientsSetOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const workspaceId = ctx.principal.workspaceId
      const record = yield* sequenceOf(workspaceId, input.sequence_id, true)
      const asked = input.list_id === undefined
        ? { ids: input.person_ids ?? [], source: "brein directory (people ids)" }
        : yield* listPeople(workspaceId, input.list_id)
      const ids = [...new Set(asked.ids)]
      const people = yield* (yield* Audience).people(workspaceId, ids)
      const unknown = ids.filter((id) => !people.has(id))
      if (unknown.length > 0) {
        return yield* RecordNotFound.of("person", unknown, { hint: "Nothing was changed. Drop these ids or take them from people_search." })
      }
      const emails = ids.flatMap((id) => people.get(id)?.email ?? [])
      const suppressed = yield* (yield* Suppressions).reasons(workspaceId, emails)
      const source = input.source ?? asked.source
      const recipients: Array<DigestedRecipient> = ids.flatMap((id, i) => {
        const person = people.get(id)
        if (person === undefined) return []
        return [{
          position: i + 1,
          personId: id,
          email: person.email,
          country: person.country,
          fields: mergeFieldsOf(person),
          source,
          lawfulBasis: input.lawful_basis ?? null,
          suppressedReason: person.email === null ? null : suppressed.get(person.email) ?? null
        }]
      })
      const updated = yield* (yield* SequenceStore).setRecipients(record, recipients)
      const counts = countRecipients(recipients)
      const excluded = recipients.flatMap((r) => {
        const reason = r.email === null ? "no_email" as const : r.suppressedReason
        return reason === null ? [] : [{ person_id: r.personId, full_name: r.fields["full_name"] ?? "", email: r.email, reason }]
      })
      // Without an email: revealing helps those not revealed yet; the directory has none for the others.
      const noEmail = excluded.filter((e) => e.reason === "no_email").map((e) => e.person_id)
      const unrevealed = noEmail.filter((id) => people.get(id)?.revealed === false)
      const noneOnFile = noEmail.length - unrevealed.length
      const warnings = [
        ...(input.lawful_basis === undefined ? ["no lawful_basis given: preflight blocks recipients without one (data_basis)"] : []),
        ...(noneOnFile > 0
          ? [`${noneOnFile} recipient(s) were revealed but the directory has no email for them: they are kept and never written to`]
          : [])
      ]
      yield* ctx.annotate({
        ...(warnings.length === 0 ? {} : { warnings }),
        next_actions: [
          ...(unrevealed.length > 0
            ? [{
              tool: "people_reveal",
              reason: `${unrevealed.length} recipient(s) have no revealed email`,
              input: { person_ids: unrevealed.slice(0, 100) }
            }]
            : []),
          { tool: "sequence_preview", reason: "render the messages for these recipients", input: { sequence_id: updated.id } }
        ]
      })
      return {
        sequence_id: updated.id,
        ref: sequenceRef(updated),
        version: updated.version,
        recipients_digest: updated.recipientsDigest,
        ...counts,
        duplicates_removed: asked.ids.length - ids.length,
        excluded: excluded.slice(0, MAX_EXCLUDED_SHOWN),
        source,
        lawful_basis: input.lawful_basis ?? null
      }
    })
})
