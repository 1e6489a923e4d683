import { SqlClient, type SqlError } from "@effect/sql"
import { DateTime, Effect, Option, Schema } from "effect"
import { SequenceConflict } from "../../../schema/catalog/SequenceErrors.ts"
import { SequenceDefinition, SequenceStatus, SuppressionReason } from "../../../schema/catalog/Sequences.ts"
import { readSnapshot, sqlState } from "../../Database.ts"
import { newId } from "../../Ids.ts"
import { contentDigest, definitionText, type DigestedRecipient, recipientsDigest } from "./Digest.ts"

const Row = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  status: SequenceStatus,
  version: Schema.Int,
  definition: Schema.parseJson(SequenceDefinition),
  contentDigest: Schema.String,
  recipientsDigest: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  activatedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type SequenceRecord = typeof Row.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

export const RecipientRow = Schema.Struct({
  position: Schema.Int,
  personId: Schema.String,
  email: Schema.NullOr(Schema.String),
  country: Schema.Literal("CL", "MX"),
  fields: Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String })),
  source: Schema.String,
  lawfulBasis: Schema.NullOr(Schema.String),
  suppressedReason: Schema.NullOr(SuppressionReason)
})
export type RecipientRow = typeof RecipientRow.Type
const decodeRecipients = Schema.decodeUnknown(Schema.Array(RecipientRow))
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Int })))
const encodeFields = Schema.encodeSync(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String })))

const EMPTY_RECIPIENTS = recipientsDigest([])
const COLUMNS = "id, workspace_id, status, version, definition, content_digest, recipients_digest, created_at, updated_at, activated_at"

const notDraft = (record: SequenceRecord) =>
  new SequenceConflict({
    reason: "not_draft",
    sequenceId: record.id,
    status: record.status,
    message: `sequence ${record.id} is ${record.status}: only a draft is edited`,
    hint:
      "Create a new sequence (sequence_create) for new content or recipients; an active one is paused by a signed-in person (POST /api/v1/sequences/{id}/pause), not a tool"
  })

const Counts = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Int }))
const decodeDelivery = Schema.decodeUnknown(Schema.Array(Schema.Struct({
  enrollments: Counts,
  sends: Counts,
  lastSentAt: Schema.NullOr(Schema.DateFromSelf)
})))

/**
 * The unique index on a workspace's sequence names (ignoring case) refused the write: no row, which the
 * caller answers as a duplicate_name conflict. The write runs in its own savepoint (withTransaction).
 */
const nameTaken = (error: SqlError.SqlError) =>
  sqlState(error) === "23505" ? Effect.succeed<ReadonlyArray<unknown>>([]) : Effect.fail(error)

/** Sequences and their recipients: every change of content or recipients bumps the version and recomputes its digest. */
export class SequenceStore extends Effect.Service<SequenceStore>()("brein/catalog/sequences/SequenceStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(DateTime.now, DateTime.toDateUtc)

    const create = Effect.fn("SequenceStore.create")(function* (workspaceId: string, definition: SequenceDefinition) {
      const id = yield* newId("sq")
      const at = yield* now
      const rows = yield* sql.unsafe(
        `INSERT INTO sequences (id, workspace_id, name, status, version, mailbox_id, definition, content_digest, recipients_digest,
          created_at, updated_at)
        VALUES ($1, $2, $3, 'draft', 1, $4, $5, $6, $7, $8, $8) RETURNING ${COLUMNS}`,
        [
          id,
          workspaceId,
          definition.name,
          definition.mailbox_id,
          definitionText(definition),
          contentDigest(definition),
          EMPTY_RECIPIENTS,
          at
        ]
      ).pipe(sql.withTransaction, Effect.catchTag("SqlError", nameTaken), Effect.flatMap(decodeRows), Effect.orDie)
      const created = rows[0]
      if (created === undefined) {
        const holder = yield* sql<{ id: string; status: string; name: string }>`SELECT id, status, name FROM sequences
          WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${definition.name})`.pipe(Effect.orDie)
        return yield* new SequenceConflict({
          reason: "duplicate_name",
          sequenceId: holder[0]?.id ?? "",
          status: holder[0]?.status ?? "draft",
          message: `the workspace already has a sequence named ${JSON.stringify(holder[0]?.name ?? definition.name)} ` +
            "(names are unique ignoring case)",
          hint: "Pick another name, or edit that sequence with sequence_update while it is a draft"
        })
      }
      return created
    })

    /** The workspace's sequence; `lock` holds its row until the transaction ends (edits serialize on it). */
    const find = Effect.fn("SequenceStore.find")(function* (workspaceId: string, id: string, lock = false) {
      const rows = yield* sql.unsafe(
        `SELECT ${COLUMNS} FROM sequences WHERE workspace_id = $1 AND id = $2${lock ? " FOR UPDATE" : ""}`,
        [workspaceId, id]
      ).pipe(Effect.flatMap(decodeRows), Effect.orDie)
      return Option.fromNullable(rows[0])
    })

    /** Stores the new definition as the next version; one with the same content digest changes nothing (`changed: false`). */
    const update = Effect.fn("SequenceStore.update")(function* (record: SequenceRecord, definition: SequenceDefinition) {
      if (record.status !== "draft") return yield* notDraft(record)
      if (contentDigest(definition) === record.contentDigest) return { record, changed: false }
      const at = yield* now
      const taken = new SequenceConflict({
        reason: "duplicate_name",
        sequenceId: record.id,
        status: record.status,
        message: `the workspace already has another sequence named ${JSON.stringify(definition.name)} (names are unique ignoring case)`,
        hint: "Keep the name or pick one no other sequence of the workspace has"
      })
      const clash = yield* sql`SELECT 1 AS one FROM sequences
        WHERE workspace_id = ${record.workspaceId} AND lower(name) = lower(${definition.name}) AND id <> ${record.id}`.pipe(
        Effect.orDie
      )
      if (clash.length > 0) return yield* taken
      const rows = yield* sql.unsafe(
        `UPDATE sequences SET name = $2, mailbox_id = $3, definition = $4, content_digest = $5, version = version + 1, updated_at = $6
        WHERE id = $1 RETURNING ${COLUMNS}`,
        [record.id, definition.name, definition.mailbox_id, definitionText(definition), contentDigest(definition), at]
      ).pipe(
        // another writer took the name after the check above; the savepoint keeps the caller's transaction usable
        sql.withTransaction,
        Effect.catchTag("SqlError", nameTaken),
        Effect.flatMap(decodeRows),
        Effect.orDie
      )
      const updated = rows[0]
      if (updated === undefined) return yield* taken
      return { record: updated, changed: true }
    })

    /** Replaces the recipients (in order); the caller's transaction makes it all or nothing. */
    const setRecipients = Effect.fn("SequenceStore.setRecipients")(
      function* (record: SequenceRecord, recipients: ReadonlyArray<DigestedRecipient>) {
        if (record.status !== "draft") return yield* notDraft(record)
        const at = yield* now
        yield* sql`DELETE FROM sequence_recipients WHERE sequence_id = ${record.id}`.pipe(Effect.orDie)
        if (recipients.length > 0) {
          yield* sql.unsafe(
            `INSERT INTO sequence_recipients (sequence_id, position, person_id, email, country, fields, source, lawful_basis, suppressed_reason)
            SELECT $1, u.* FROM unnest($2::int4[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
              AS u(position, person_id, email, country, fields, source, lawful_basis, suppressed_reason)`,
            [
              record.id,
              recipients.map((r) => r.position),
              recipients.map((r) => r.personId),
              recipients.map((r) => r.email),
              recipients.map((r) => r.country),
              recipients.map((r) => encodeFields(r.fields)),
              recipients.map((r) => r.source),
              recipients.map((r) => r.lawfulBasis),
              recipients.map((r) => r.suppressedReason)
            ]
          ).pipe(Effect.orDie)
        }
        const rows = yield* sql.unsafe(
          `UPDATE sequences SET recipients_digest = $2, version = version + 1, updated_at = $3 WHERE id = $1 RETURNING ${COLUMNS}`,
          [record.id, recipientsDigest(recipients), at]
        ).pipe(Effect.flatMap(decodeRows), Effect.orDie)
        return rows[0] ?? (yield* Effect.dieMessage("sequence update returned no row"))
      }
    )

    /** Recipients after position `after`, at most `limit`, in position order. */
    const recipients = Effect.fn("SequenceStore.recipients")(function* (sequenceId: string, after = 0, limit = 100_000) {
      return yield* sql`SELECT position, person_id, email, country, fields, source, lawful_basis, suppressed_reason
        FROM sequence_recipients WHERE sequence_id = ${sequenceId} AND position > ${after} ORDER BY position LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRecipients),
        Effect.orDie
      )
    })

    /** How many recipients the sequence has. */
    const recipientCount = Effect.fn("SequenceStore.recipientCount")(function* (sequenceId: string) {
      const [row] = yield* sql`SELECT count(*)::int AS n FROM sequence_recipients WHERE sequence_id = ${sequenceId}`.pipe(
        Effect.flatMap(decodeCount),
        Effect.orDie
      )
      return row?.n ?? 0
    })

    /** How far the dispatcher got with a version: its enrollments and its sends, counted by state, and the last send. */
    const delivery = Effect.fn("SequenceStore.delivery")(function* (sequenceId: string, version: number) {
      const [counted] = yield* sql`SELECT
          (SELECT coalesce(json_object_agg(state, n), '{}')::text FROM (SELECT state, count(*)::int AS n
             FROM sequence_enrollments WHERE sequence_id = ${sequenceId} AND version = ${version} GROUP BY state) e) AS enrollments,
          (SELECT coalesce(json_object_agg(state, n), '{}')::text FROM (SELECT state, count(*)::int AS n
             FROM sequence_sends WHERE sequence_id = ${sequenceId} AND version = ${version} GROUP BY state) s) AS sends,
          (SELECT max(sent_at) FROM sequence_sends WHERE sequence_id = ${sequenceId} AND version = ${version}) AS last_sent_at`.pipe(
        Effect.flatMap(decodeDelivery),
        Effect.orDie
      )
      return counted ?? (yield* Effect.dieMessage("delivery counts returned no row"))
    })

    /** Runs reads of a sequence and its recipients on one snapshot: a page is of one version (Database.readSnapshot). */
    const snapshot = <A, E, R>(reads: Effect.Effect<A, E, R>) => readSnapshot(sql, reads)

    return { create, find, update, setRecipients, recipients, recipientCount, delivery, snapshot }
  })
}) {}
