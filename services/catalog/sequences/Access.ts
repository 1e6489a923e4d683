import { Effect, Option } from "effect"
import { SequenceNotFound } from "../../../schema/catalog/SequenceErrors.ts"
import type { DigestedRecipient } from "./Digest.ts"
import { Mailboxes } from "./Mailboxes.ts"
import { type SequenceRecord, SequenceStore } from "./SequenceStore.ts"

export const FAMILY = "secuencias"
export const STAGES = ["con_lista"] as const

/** The workspace's sequence, or SequenceNotFound; `lock` holds the row for an edit. */
export const sequenceOf = Effect.fn("Sequences.sequenceOf")(function* (workspaceId: string, sequenceId: string, lock = false) {
  const found = yield* (yield* SequenceStore).find(workspaceId, sequenceId, lock)
  return yield* Option.match(found, {
    onNone: () =>
      new SequenceNotFound({
        kind: "sequence",
        id: sequenceId,
        message: `no sequence ${JSON.stringify(sequenceId)} in this workspace`,
        hint: "Sequences belong to a workspace: create one with sequence_create"
      }),
    onSome: Effect.succeed
  })
})

/** The workspace's mailbox, or SequenceNotFound (kind mailbox). */
export const mailboxOf = Effect.fn("Sequences.mailboxOf")(function* (workspaceId: string, mailboxId: string) {
  const found = yield* (yield* Mailboxes).find(workspaceId, mailboxId)
  return yield* Option.match(found, {
    onNone: () =>
      new SequenceNotFound({
        kind: "mailbox",
        id: mailboxId,
        message: `no sender mailbox ${JSON.stringify(mailboxId)} in this workspace`,
        hint: "An operator adds one with: brein mailboxes add --workspace NAME --email E --name N; brein mailboxes list shows their ids"
      }),
    onSome: Effect.succeed
  })
})

/** A sequence version's ref, `sequence:<id>@v<version>`: what an answer about that version cites. */
export const sequenceRef = (record: Pick<SequenceRecord, "id" | "version">) => `sequence:${record.id}@v${record.version}`

/** The identity of the version an answer is of: its sequence, ref, version and both digests. */
export const versionOf = (record: SequenceRecord) => ({
  sequence_id: record.id,
  ref: sequenceRef(record),
  version: record.version,
  content_digest: record.contentDigest,
  recipients_digest: record.recipientsDigest
})

export const countRecipients = (recipients: ReadonlyArray<DigestedRecipient>) => ({
  total: recipients.length,
  sendable: recipients.filter((r) => r.email !== null && r.suppressedReason === null).length,
  no_email: recipients.filter((r) => r.email === null).length,
  suppressed: recipients.filter((r) => r.suppressedReason !== null).length,
  by_country: {
    CL: recipients.filter((r) => r.country === "CL").length,
    MX: recipients.filter((r) => r.country === "MX").length
  }
})
