import { Effect, Schema, String as Str } from "effect"
import type pg from "pg"
import { AuditRow } from "../../../schema/audit/AuditRow.ts"
import { linkDigest } from "../../../services/audit/Chain.ts"
import { type Attack, range, report } from "./Attack.ts"
import { execute } from "./Http.ts"
import { cli, connect, createKey, type Database, freshDatabase, query, StageFailed, startService } from "./Stage.ts"

const CALLS_PER_WORKSPACE = 60
const TRUNCATED = 5

const decodeRow = Schema.decodeUnknown(AuditRow)
const camel = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [Str.snakeToCamel(k), v]))

/** As a superuser would: replica role silences ordinary triggers (the append-only guard among them). */
const asSuperuser = (sql: pg.Client, work: Effect.Effect<void, StageFailed>) =>
  query(sql, "BEGIN").pipe(
    Effect.zipRight(query(sql, "SET LOCAL session_replication_role = replica")),
    Effect.zipRight(work),
    Effect.zipRight(query(sql, "COMMIT")),
    Effect.asVoid,
    Effect.tapError(() => query(sql, "ROLLBACK").pipe(Effect.ignore))
  )

/** What was done and how many rows it touched. */
type Tampering = (sql: pg.Client, chain: string) => Effect.Effect<readonly [string, number], StageFailed>

const truncate: Tampering = (sql, chain) =>
  Effect.as(
    asSuperuser(
      sql,
      Effect.asVoid(
        query(sql, "DELETE FROM audit_log WHERE chain = $1 AND seq > (SELECT max(seq) - $2 FROM audit_log WHERE chain = $1)", [
          chain,
          TRUNCATED
        ])
      )
    ),
    [`last ${TRUNCATED} rows of a chain deleted`, TRUNCATED] as const
  )

const dropChain: Tampering = (sql, chain) =>
  Effect.as(
    asSuperuser(sql, Effect.asVoid(query(sql, "DELETE FROM audit_log WHERE chain = $1", [chain]))),
    ["a whole chain deleted", CALLS_PER_WORKSPACE] as const
  )

/** Row 2 gets another latency; it and every row after it are linked again with the public algorithm. */
const rechain: Tampering = (sql, chain) =>
  Effect.gen(function* () {
    const found = yield* query(sql, "SELECT * FROM audit_log WHERE chain = $1 ORDER BY seq", [chain])
    const rows = yield* Effect.forEach(found.rows, (row) => decodeRow(camel(row))).pipe(
      Effect.mapError((cause) => new StageFailed({ message: `audit row: ${cause.message}` }))
    )
    const work = Effect.gen(function* () {
      let prevDigest = rows[0]?.digest ?? ""
      for (const row of rows.slice(1)) {
        const changed = { ...row, latencyMs: row.seq === 2 ? row.latencyMs + 1000 : row.latencyMs, prevDigest }
        const digest = linkDigest(changed)
        yield* query(sql, "UPDATE audit_log SET latency_ms = $3, prev_digest = $4, digest = $5 WHERE chain = $1 AND seq = $2", [
          chain,
          row.seq,
          changed.latencyMs,
          prevDigest,
          digest
        ])
        prevDigest = digest
      }
    })
    yield* asSuperuser(sql, work)
    return [`row 2 rewritten and ${rows.length - 1} rows re-chained`, rows.length - 1] as const
  })

const verify = (db: Database) =>
  Effect.map(cli(db, ["audit", "verify"]), (result) => ({
    exitCode: result.exitCode,
    said: (result.stdout.trim() || result.stderr.trim()).split("\n")[0] ?? ""
  }))

/** Calls from two workspaces (two chains), then the service stops: nothing writes while the log is tampered with. */
const recordedLog = (db: Database) =>
  Effect.scoped(Effect.gen(function* () {
    const service = yield* startService(db)
    const keys = [yield* createKey(db, "attack-free", "free"), yield* createKey(db, "attack-paid", "paid")]
    yield* Effect.forEach(keys, (key) =>
      Effect.forEach(range(CALLS_PER_WORKSPACE), () =>
        execute(service.origin, key, "core.timestamp.now", {}), { concurrency: 4, discard: true }), { discard: true })
  }))

const cases: ReadonlyArray<readonly [string, Tampering]> = [["truncation", truncate], ["chain deletion", dropChain], ["re-chain", rechain]]

/** Each tampering on its own database: verify must say the untouched log is intact and the tampered one is not. */
export const tamper: Attack = {
  name: "tamper",
  run: (settings) =>
    Effect.forEach(cases, ([label, tampering]) =>
      Effect.scoped(Effect.gen(function* () {
        const db = yield* freshDatabase(settings.adminUrl, "tamper")
        yield* recordedLog(db)
        const control = yield* verify(db)
        const sql = yield* connect(db.url)
        const chain = String(
          (yield* query<{ chain: string }>(sql, "SELECT chain FROM audit_log GROUP BY chain ORDER BY count(*) DESC LIMIT 1")).rows[0]?.chain
        )
        const [done, touched] = yield* tampering(sql, chain).pipe(
          Effect.catchTag("StageFailed", (e) => Effect.succeed([`refused by the database (${e.message})`, 0] as const))
        )
        const after = yield* verify(db)
        yield* report(
          `audit tamper: ${label}`,
          `${touched} rows touched`,
          `${done}; audit verify ${
            touched === 0 ? "had nothing to find" : after.exitCode === 0 ? "MISSED it" : "DETECTED it"
          } (exit ${after.exitCode}): ${after.said}${control.exitCode === 0 ? "" : ` [before tampering it already said: ${control.said}]`}`
        )
      })), { discard: true })
}
