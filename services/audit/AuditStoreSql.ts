import { SqlClient, SqlError } from "@effect/sql"
import { Array as Arr, Clock, Effect, Layer, Option, Schema } from "effect"
import { type AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"
import { Checkpoint } from "../../schema/audit/Checkpoint.ts"
import { AuditChainMoved, AuditStore, AuditStoreFailed, type ChainHead } from "./AuditStore.ts"
import { chainEntries, GENESIS, type UnsignedCheckpoint } from "./Chain.ts"

const decodeRows = Schema.decodeUnknown(Schema.Array(AuditRow))
const Head = Schema.Struct({ chain: Schema.String, seq: Schema.NumberFromString, digest: Schema.String })
const decodeHeads = Schema.decodeUnknown(Schema.Array(Head))
const decodeCheckpoints = Schema.decodeUnknown(Schema.Array(Checkpoint))
const LastCheckpoint = Schema.Struct({ seq: Schema.NumberFromString, signature: Schema.String })
const decodeLast = Schema.decodeUnknown(Schema.Array(LastCheckpoint))
const Database = Schema.Struct({ name: Schema.String })
const decodeDatabase = Schema.decodeUnknown(Schema.Array(Database))

const COLUMNS = [
  "chain", "seq", "request_id", "at", "workspace_id", "principal", "surface", "tool_id", "plane", "connection_id",
  "input_digest", "output_digest", "outcome", "error_tag", "latency_ms", "cost", "prev_digest", "digest"
] as const
const TYPES = [
  "text", "bigint", "text", "timestamptz", "text", "text", "text", "text", "text", "text",
  "text", "text", "text", "text", "float8", "text", "text", "text"
] as const
const INSERT = `INSERT INTO audit_log (${COLUMNS.join(", ")}) SELECT * FROM unnest(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(", ")})`

const columnsOf = (rows: ReadonlyArray<AuditRow>) => [
  rows.map((r) => r.chain), rows.map((r) => r.seq), rows.map((r) => r.requestId), rows.map((r) => r.at.toISOString()),
  rows.map((r) => r.workspaceId), rows.map((r) => r.principal), rows.map((r) => r.surface), rows.map((r) => r.toolId),
  rows.map((r) => r.plane), rows.map((r) => r.connectionId), rows.map((r) => r.inputDigest), rows.map((r) => r.outputDigest),
  rows.map((r) => r.outcome), rows.map((r) => r.errorTag), rows.map((r) => r.latencyMs), rows.map((r) => r.cost),
  rows.map((r) => r.prevDigest), rows.map((r) => r.digest)
]

const codeOf = (error: SqlError.SqlError) =>
  typeof error.cause === "object" && error.cause !== null && "code" in error.cause ? error.cause.code : undefined

/** unique_violation, deadlock_detected, serialization_failure: another writer came first; chain again. */
const RACES = new Set(["23505", "40P01", "40001"])
const isRace = (error: SqlError.SqlError) => RACES.has(String(codeOf(error)))
const failedInRace = (error: AuditStoreFailed) => error.cause instanceof SqlError.SqlError && isRace(error.cause)

// One lock for every process writing checkpoints (the two-key form: apart from the chains' locks).
const CHECKPOINT_LOCK = "SELECT pg_advisory_xact_lock(1651664233, 7)"

const byChainThenSeq = (a: AuditRow, b: AuditRow) => (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : a.seq - b.seq)

export const AuditStoreSql = Layer.effect(
  AuditStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const fail = (cause: unknown) => new AuditStoreFailed({ cause })
    const moved = (entries: ReadonlyArray<AuditEntry>) => new AuditChainMoved({ chains: [...new Set(entries.map((e) => e.workspaceId))] })

    const lock = (chain: string) =>
      sql`SELECT pg_advisory_xact_lock(hashtextextended(${chain}, 0))`.pipe(Effect.asVoid, Effect.mapError(fail))

    const heads = (chains: ReadonlyArray<string>) =>
      sql`SELECT DISTINCT ON (chain) chain, seq::text AS seq, digest FROM audit_log
          WHERE chain IN ${sql.in(chains)} ORDER BY chain, audit_log.seq DESC`.pipe(
        Effect.flatMap(decodeHeads),
        Effect.map((rows) => new Map<string, ChainHead>(rows.map((r) => [r.chain, { seq: r.seq, digest: r.digest }]))),
        Effect.mapError(fail)
      )

    // Every writer inserts in (chain, seq) order: two statements waiting on each other's rows
    // would otherwise deadlock.
    const insert = (rows: ReadonlyArray<AuditRow>) =>
      sql.unsafe(INSERT, columnsOf([...rows].sort(byChainThenSeq))).pipe(
        Effect.asVoid,
        Effect.catchAll((error): Effect.Effect<never, AuditChainMoved | AuditStoreFailed> =>
          isRace(error)
            ? Effect.fail(new AuditChainMoved({ chains: [...new Set(rows.map((r) => r.chain))] }))
            : Effect.fail(fail(error))
        )
      )

    const page = (after: Option.Option<{ readonly chain: string; readonly seq: number }>, limit: number) =>
      Option.match(after, {
        onNone: () => sql`SELECT * FROM audit_log ORDER BY chain, seq LIMIT ${limit}`,
        onSome: (a) => sql`SELECT * FROM audit_log WHERE (chain, seq) > (${a.chain}, ${a.seq}) ORDER BY chain, seq LIMIT ${limit}`
      }).pipe(Effect.flatMap(decodeRows), Effect.mapError(fail))

    const byRequest = (requestId: string) =>
      sql`SELECT * FROM audit_log WHERE request_id = ${requestId} LIMIT 1`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map(Arr.head),
        Effect.mapError(fail)
      )

    const appendLocked = (entries: ReadonlyArray<AuditEntry>) =>
      Effect.gen(function* () {
        const chains = [...new Set(entries.map((e) => e.workspaceId))].sort()
        for (const chain of chains) yield* lock(chain)
        const found = yield* heads(chains)
        const rows = chains.flatMap((chain) =>
          chainEntries(chain, found.get(chain) ?? { seq: 0, digest: GENESIS }, entries.filter((e) => e.workspaceId === chain))
        )
        yield* insert(rows)
        return rows
      }).pipe(
        sql.withTransaction,
        Effect.catchTag("SqlError", (error) => Effect.fail(isRace(error) ? moved(entries) : fail(error))),
        Effect.catchTag("AuditStoreFailed", (error) => Effect.fail(failedInRace(error) ? moved(entries) : error))
      )

    const insertNested = (rows: ReadonlyArray<AuditRow>) =>
      sql.withTransaction(insert(rows)).pipe(
        Effect.catchTag("SqlError", (error) =>
          Effect.fail(isRace(error) ? new AuditChainMoved({ chains: [...new Set(rows.map((r) => r.chain))] }) : fail(error)))
      )

    const checkpoint = (chains: ReadonlyArray<string>, sign: (checkpoint: UnsignedCheckpoint) => string) =>
      Effect.gen(function* () {
        yield* sql.unsafe(CHECKPOINT_LOCK)
        const last = yield* sql`SELECT seq::text AS seq, signature FROM audit_checkpoint ORDER BY audit_checkpoint.seq DESC LIMIT 1`.pipe(
          Effect.flatMap(decodeLast),
          Effect.map(Arr.head)
        )
        const found = yield* heads(chains)
        if (found.size === 0) return Option.none()
        const unsigned: UnsignedCheckpoint = {
          seq: Option.match(last, { onNone: () => 1, onSome: (l) => l.seq + 1 }),
          at: new Date(yield* Clock.currentTimeMillis),
          heads: [...found].map(([chain, head]) => ({ chain, seq: head.seq, digest: head.digest })).sort((a, b) => (a.chain < b.chain ? -1 : 1)),
          prevSignature: Option.match(last, { onNone: () => GENESIS, onSome: (l) => l.signature })
        }
        const signed = { ...unsigned, signature: sign(unsigned) }
        yield* sql`INSERT INTO audit_checkpoint (seq, at, heads, prev_signature, signature)
          VALUES (${signed.seq}, ${signed.at}, ${JSON.stringify(signed.heads)}::jsonb, ${signed.prevSignature}, ${signed.signature})`
        return Option.some(signed)
      }).pipe(
        sql.withTransaction,
        // The lock serializes the writers of checkpoints; the sequence's key would refuse a second one anyway.
        Effect.retry({ times: 10, while: (error) => error._tag === "SqlError" && isRace(error) }),
        Effect.mapError(fail)
      )

    const checkpoints = (afterSeq: number, limit: number) =>
      sql`SELECT seq, at, heads, prev_signature, signature FROM audit_checkpoint WHERE seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeCheckpoints),
        Effect.mapError(fail)
      )

    const database = sql`SELECT current_database() AS name`.pipe(
      Effect.flatMap(decodeDatabase),
      Effect.map((rows) => rows[0]?.name ?? ""),
      Effect.mapError(fail)
    )

    return AuditStore.of({ lock, heads, insert, appendLocked, insertNested, page, byRequest, checkpoint, checkpoints, database })
  })
)
