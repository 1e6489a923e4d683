import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Layer, Option, Schema } from "effect"
import { type AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"
import { AuditStore, AuditStoreFailed } from "./AuditStore.ts"
import { chainEntries, GENESIS } from "./Chain.ts"

const decodeRows = Schema.decodeUnknown(Schema.Array(AuditRow))
const Last = Schema.Struct({ seq: Schema.NumberFromString, digest: Schema.String })
const decodeLast = Schema.decodeUnknown(Schema.Array(Last))

export const AuditStoreSql = Layer.effect(
  AuditStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const fail = (cause: unknown) => new AuditStoreFailed({ cause })

    const append = (chain: string, entries: ReadonlyArray<AuditEntry>) =>
      Effect.gen(function* () {
        // One writer per chain in this process; the lock keeps other processes from forking the chain.
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${chain}, 0))`
        // ORDER BY the column, not the text alias: "9" sorts after "10"
        const last = yield* sql`SELECT seq::text AS seq, digest FROM audit_log WHERE chain = ${chain} ORDER BY audit_log.seq DESC LIMIT 1`.pipe(
          Effect.flatMap(decodeLast)
        )
        const rows = chainEntries(chain, Arr.head(last).pipe(Option.getOrElse(() => ({ seq: 0, digest: GENESIS }))), entries)
        yield* sql`INSERT INTO audit_log ${sql.insert(rows.map((row) => ({ ...row })))}`
        return rows
      }).pipe(sql.withTransaction, Effect.mapError(fail))

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

    return AuditStore.of({ append, page, byRequest })
  })
)
