import { SqlClient, SqlError } from "@effect/sql"
import { Array as Arr, Clock, Effect, Layer, Option, Schema } from "effect"
import { type AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"
import { Checkpoint } from "../../schema/audit/Checkpoint.ts"
import { traced } from "../Span.ts"
import { AuditChainMoved, AuditKeyForeign, AuditStore, AuditStoreFailed, type ChainHead, type CheckpointSigner } from "./AuditStore.ts"
import { chainsOf, link, nextCheckpoint } from "./Chain.ts"

const decodeRows = Schema.decodeUnknown(Schema.Array(AuditRow))
const Head = Schema.Struct({ chain: Schema.String, seq: Schema.NumberFromString, digest: Schema.String })
const decodeHeads = Schema.decodeUnknown(Schema.Array(Head))
const decodeCheckpoints = Schema.decodeUnknown(Schema.Array(Checkpoint))
const Chain = Schema.Struct({ chain: Schema.String })
const decodeChains = Schema.decodeUnknown(Schema.Array(Chain))
const Database = Schema.Struct({ name: Schema.String })
const decodeDatabase = Schema.decodeUnknown(Schema.Array(Database))

const COLUMNS = [
  "chain",
  "seq",
  "request_id",
  "at",
  "workspace_id",
  "principal",
  "surface",
  "tool_id",
  "plane",
  "connection_id",
  "input_digest",
  "output_digest",
  "outcome",
  "error_tag",
  "latency_ms",
  "cost",
  "prev_digest",
  "digest",
  "trace_id"
] as const
const TYPES = [
  "text",
  "bigint",
  "text",
  "timestamptz",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "float8",
  "text",
  "text",
  "text",
  "text"
] as const
const INSERT = `INSERT INTO audit_log (${COLUMNS.join(", ")}) SELECT * FROM unnest(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(", ")})`

const columnsOf = (rows: ReadonlyArray<AuditRow>) => [
  rows.map((r) => r.chain),
  rows.map((r) => r.seq),
  rows.map((r) => r.requestId),
  rows.map((r) => r.at.toISOString()),
  rows.map((r) => r.workspaceId),
  rows.map((r) => r.principal),
  rows.map((r) => r.surface),
  rows.map((r) => r.toolId),
  rows.map((r) => r.plane),
  rows.map((r) => r.connectionId),
  rows.map((r) => r.inputDigest),
  rows.map((r) => r.outputDigest),
  rows.map((r) => r.outcome),
  rows.map((r) => r.errorTag),
  rows.map((r) => r.latencyMs),
  rows.map((r) => r.cost),
  rows.map((r) => r.prevDigest),
  rows.map((r) => r.digest),
  rows.map((r) => r.traceId ?? null)
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
    const moved = (chains: ReadonlyArray<string>) => new AuditChainMoved({ chains: [...new Set(chains)] })

    const lock = Effect.fn("AuditStore.lock")(function* (chain: string) {
      yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${chain}, 0))`.pipe(Effect.mapError(fail))
    })

    const heads = Effect.fn("AuditStore.heads")(function* (chains: ReadonlyArray<string>) {
      // the chains as one array parameter: a checkpoint's chains (every workspace that wrote since the last
      // one, and more after one fails) are not bounded by the 65,535 parameters a statement may carry
      const rows = yield* sql`SELECT DISTINCT ON (chain) chain, seq::text AS seq, digest FROM audit_log
          WHERE chain = ANY(${chains}::text[]) ORDER BY chain, audit_log.seq DESC`.pipe(Effect.flatMap(decodeHeads), Effect.mapError(fail))
      return new Map<string, ChainHead>(rows.map((r) => [r.chain, { seq: r.seq, digest: r.digest }]))
    })

    // Every writer inserts in (chain, seq) order: two statements waiting on each other's rows
    // would otherwise deadlock.
    // On the group writer's path: a span without a captured stack (services/Span.ts).
    const insert = traced("AuditStore.insert")(Effect.fnUntraced(function* (rows: ReadonlyArray<AuditRow>) {
      yield* sql.unsafe(INSERT, columnsOf([...rows].sort(byChainThenSeq))).pipe(
        Effect.catchAll((error): Effect.Effect<never, AuditChainMoved | AuditStoreFailed> =>
          Effect.fail(isRace(error) ? moved(rows.map((r) => r.chain)) : fail(error))
        )
      )
    }))

    const page = Effect.fn("AuditStore.page")(
      function* (after: Option.Option<{ readonly chain: string; readonly seq: number }>, limit: number) {
        return yield* Option.match(after, {
          onNone: () => sql`SELECT * FROM audit_log ORDER BY chain, seq LIMIT ${limit}`,
          onSome: (a) => sql`SELECT * FROM audit_log WHERE (chain, seq) > (${a.chain}, ${a.seq}) ORDER BY chain, seq LIMIT ${limit}`
        }).pipe(Effect.flatMap(decodeRows), Effect.mapError(fail))
      }
    )

    const byRequest = Effect.fn("AuditStore.byRequest")(function* (requestId: string, digest: string) {
      const rows = yield* sql`SELECT * FROM audit_log WHERE request_id = ${requestId}
        ORDER BY digest = ${digest} DESC, chain, seq LIMIT 1`.pipe(
        Effect.flatMap(decodeRows),
        Effect.mapError(fail)
      )
      return Arr.head(rows)
    })

    const appendLocked = Effect.fn("AuditStore.appendLocked")(
      function* (entries: ReadonlyArray<AuditEntry>) {
        const chains = chainsOf(entries)
        for (const chain of chains) yield* lock(chain)
        const rows = link(yield* heads(chains), entries)
        yield* insert(rows)
        return rows
      },
      sql.withTransaction,
      (effect, entries) =>
        effect.pipe(
          Effect.catchTag("SqlError", (error) => Effect.fail(isRace(error) ? moved(chainsOf(entries)) : fail(error))),
          Effect.catchTag("AuditStoreFailed", (error) => Effect.fail(failedInRace(error) ? moved(chainsOf(entries)) : error))
        )
    )

    const insertNested = Effect.fn("AuditStore.insertNested")(
      function* (rows: ReadonlyArray<AuditRow>) {
        yield* insert(rows)
      },
      sql.withTransaction,
      (effect, rows) =>
        Effect.catchTag(effect, "SqlError", (error) => Effect.fail(isRace(error) ? moved(rows.map((r) => r.chain)) : fail(error)))
    )

    const checkpoint = Effect.fn("AuditStore.checkpoint")(
      function* (chains: ReadonlyArray<string>, signer: CheckpointSigner) {
        yield* sql.unsafe(CHECKPOINT_LOCK)
        const last = yield* sql`SELECT seq, at, heads, prev_signature, signature FROM audit_checkpoint
          ORDER BY audit_checkpoint.seq DESC LIMIT 1`.pipe(Effect.flatMap(decodeCheckpoints), Effect.map(Arr.head))
        const found = yield* heads(chains)
        if (found.size === 0) return Option.none()
        // another process signing with another key (both started before either signed): signing after it breaks the log for good
        if (Option.isSome(last) && !signer.signed(last.value)) return yield* new AuditKeyForeign({ seq: last.value.seq })
        const at = new Date(yield* Clock.currentTimeMillis)
        const unsigned = nextCheckpoint(last, at, [...found].map(([chain, head]) => ({ chain, seq: head.seq, digest: head.digest })))
        const signed = { ...unsigned, signature: signer.sign(unsigned) }
        yield* sql`INSERT INTO audit_checkpoint (seq, at, heads, prev_signature, signature)
          VALUES (${signed.seq}, ${signed.at}, ${JSON.stringify(signed.heads)}::jsonb, ${signed.prevSignature}, ${signed.signature})`
        return Option.some(signed)
      },
      sql.withTransaction,
      // The lock serializes the writers of checkpoints; the sequence's key would refuse a second one anyway.
      Effect.retry({ times: 10, while: (error) => error._tag === "SqlError" && isRace(error) }),
      Effect.mapError((error) => error._tag === "AuditStoreFailed" || error._tag === "AuditKeyForeign" ? error : fail(error))
    )

    const checkpoints = Effect.fn("AuditStore.checkpoints")(function* (afterSeq: number, limit: number) {
      return yield* sql`SELECT seq, at, heads, prev_signature, signature FROM audit_checkpoint WHERE seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`
        .pipe(
          Effect.flatMap(decodeCheckpoints),
          Effect.mapError(fail)
        )
    })

    // A chain is a workspace's: each head is one step down the (chain, seq) key, however long the log.
    const writtenSinceCheckpoint = sql`SELECT w.id AS chain FROM workspaces w
        CROSS JOIN LATERAL (SELECT at FROM audit_log WHERE chain = w.id ORDER BY seq DESC LIMIT 1) head
        WHERE head.at > coalesce((SELECT at FROM audit_checkpoint ORDER BY seq DESC LIMIT 1), '-infinity')`.pipe(
      Effect.flatMap(decodeChains),
      Effect.map((rows) => rows.map((r) => r.chain)),
      Effect.mapError(fail),
      Effect.withSpan("AuditStore.writtenSinceCheckpoint")
    )

    const database = sql`SELECT current_database() AS name`.pipe(
      Effect.flatMap(decodeDatabase),
      Effect.map((rows) => rows[0]?.name ?? ""),
      Effect.mapError(fail),
      Effect.withSpan("AuditStore.database")
    )

    return AuditStore.of({
      lock,
      heads,
      insert,
      appendLocked,
      insertNested,
      page,
      byRequest,
      checkpoint,
      checkpoints,
      writtenSinceCheckpoint,
      database
    })
  })
)
