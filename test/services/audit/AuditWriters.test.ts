import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Either, Fiber, Layer } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { AuditStore } from "../../../services/audit/AuditStore.ts"
import { AuditStoreSql } from "../../../services/audit/AuditStoreSql.ts"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { link } from "../../../services/audit/Chain.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { auditKeyInTemp } from "../../support/TestAuditKey.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { AuditServices, entry } from "./Support.ts"

const CHAINS = ["ws_a", "ws_b", "ws_c"]

const rowCount = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`).pipe(
  Effect.map((rows) => rows[0]?.n ?? 0)
)

describe("audit writers", () => {
  it.scoped(
    "two processes writing the same chains at volume lose no row and every recorded answer has its row",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const key = Layer.succeedContext(yield* Layer.build(auditKeyInTemp))
        const graph = Layer.mergeAll(AuditLog.Default, AuditVerify.Default).pipe(
          Layer.provideMerge(AuditStoreSql),
          Layer.provide(key),
          Layer.provideMerge(databaseFromUrl(url))
        )
        const [one, two] = yield* Effect.all([Layer.build(graph), Layer.build(graph)], { concurrency: 2 })
        const perProcess = 1500
        const write = (context: Context.Context<AuditLog | SqlClient.SqlClient>, offset: number) =>
          Effect.forEach(Array.from({ length: perProcess }, (_, i) => offset + i), (i) =>
            Effect.gen(function* () {
              const log = yield* AuditLog
              const sql = yield* SqlClient.SqlClient
              // The two processes meet the chains in opposite orders: batches that overlap would wait on each other.
              const nth = i % CHAINS.length
              const item = entry(CHAINS[offset === 0 ? nth : CHAINS.length - 1 - nth]!, { requestId: `req_v${i}` })
              const row = i % 3 === 0 ? yield* sql.withTransaction(log.recordInTransaction(item)) : yield* log.record(item)
              return row.requestId
            }).pipe(Effect.either), { concurrency: 64 }).pipe(Effect.provide(context))
        const answers = [...(yield* Effect.all([write(one, 0), write(two, perProcess)], { concurrency: 2 }))].flat()
        const recorded = answers.filter(Either.isRight).map((a) => a.right)
        assert.strictEqual(recorded.length, 2 * perProcess, "every call was recorded")

        const sql = Context.get(one, SqlClient.SqlClient)
        const stored = new Set((yield* sql<{ requestId: string }>`SELECT request_id FROM audit_log`).map((r) => r.requestId))
        assert.strictEqual(stored.size, 2 * perProcess)
        assert.deepStrictEqual(recorded.filter((id) => !stored.has(id)), [])
        const report = yield* Effect.flatMap(AuditVerify, (v) => v.verify()).pipe(Effect.provide(two))
        assert.isTrue(report.ok, JSON.stringify(report.firstBreak))
        assert.strictEqual(report.rows, 2 * perProcess)
      }),
    { timeout: 120_000 }
  )

  it.live(
    "two writers inserting the same chains in opposite orders do not deadlock: the later one is told to chain again",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const graph = AuditStoreSql.pipe(Layer.provideMerge(databaseFromUrl(url)))
        const [one, two] = yield* Effect.all([Layer.build(graph), Layer.build(graph)], { concurrency: 2 })
        const sql = Context.get(one, SqlClient.SqlClient)
        // Fault injection: the row named "pause" waits, mid-statement, for a lock the test holds.
        yield* sql.unsafe(`CREATE FUNCTION pause_audit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.tool_id = 'pause' THEN PERFORM pg_advisory_xact_lock(42); END IF; RETURN NEW; END $$`)
        yield* sql.unsafe("CREATE TRIGGER pause_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION pause_audit()")
        const release = yield* Deferred.make<void>()
        const held = yield* Effect.fork(
          sql.withTransaction(Effect.zipRight(sql`SELECT pg_advisory_xact_lock(42)`, Deferred.await(release)))
        )
        yield* waitUntil(sql`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = 42 AND granted`, (rows) => rows.length > 0, {
          what: "the test's lock"
        })
        const empty = new Map()
        const a = link(empty, [entry("ws_a")])
        const b = link(empty, [entry("ws_b")])
        const first = yield* Effect.fork(Effect.either(
          Effect.flatMap(AuditStore, (store) => store.insert([...a, ...link(empty, [entry("ws_b", { toolId: "pause" })])])).pipe(
            Effect.provide(one)
          )
        ))
        const waiting = (n: number) =>
          waitUntil(
            sql<
              { pid: number }
            >`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO audit_log%'`,
            (rows) => rows.length >= n,
            { what: `${n} writers waiting` }
          )
        yield* waiting(1)
        const second = yield* Effect.fork(
          Effect.either(Effect.flatMap(AuditStore, (store) => store.insert([...b, ...a])).pipe(Effect.provide(two)))
        )
        yield* waiting(2)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(held)
        assert.isTrue(Either.isRight(yield* Fiber.join(first)))
        const later = yield* Fiber.join(second)
        assert.deepStrictEqual(Either.isLeft(later) && later.left._tag, "AuditChainMoved")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live("a row PostgreSQL refuses fails only its own caller, not the others in its batch", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const log = yield* AuditLog
      yield* sql`ALTER TABLE audit_log ADD CONSTRAINT refuse_poison CHECK (tool_id <> 'poison')`
      // Hold the writer's first INSERT so that everything after it queues into one batch.
      const release = yield* Deferred.make<void>()
      const held = yield* Effect.fork(sql.withTransaction(
        Effect.zipRight(sql`LOCK TABLE audit_log IN SHARE MODE`, Deferred.await(release))
      ))
      yield* waitUntil(sql`SELECT pid FROM pg_locks WHERE relation = 'audit_log'::regclass AND mode = 'ShareLock' AND granted`, (rows) =>
        rows.length > 0, { what: "the table lock" })
      const first = yield* Effect.fork(log.record(entry("ws_first")))
      yield* waitUntil(
        sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO audit_log%'`,
        (rows) =>
          rows.length > 0,
        { what: "the writer waiting on the lock" }
      )
      const entries = CHAINS.flatMap((chain) => [entry(chain), entry(chain)])
      entries.splice(5, 0, entry("ws_c", { toolId: "poison" }))
      const batch = yield* Effect.fork(Effect.forEach(entries, (e) =>
        Effect.either(log.record(e)), { concurrency: "unbounded" }))
      yield* Effect.yieldNow()
      yield* sql`SELECT 1`
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(held)
      assert.isTrue(Either.isRight(yield* Effect.either(Fiber.join(first))))
      const answers = yield* Fiber.join(batch)
      const failed = answers.flatMap((answer, i) => (Either.isLeft(answer) ? [entries[i]!.toolId] : []))
      assert.deepStrictEqual(failed, ["poison"])
      assert.strictEqual(yield* rowCount, entries.length)
      assert.isTrue((yield* Effect.flatMap(AuditVerify, (v) => v.verify())).ok)
    }).pipe(Effect.provide(AuditServices)))

  it.effect("every stored string is bounded and free of control bytes: a 900 KB tool name adds a bounded row", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const log = yield* AuditLog
      const huge = "t".repeat(900_000)
      const row = yield* log.record(
        entry("ws_a", { toolId: huge, principal: `key\u0000${huge}`, errorTag: huge, connectionId: `conn_\u0000x` })
      )
      const [stored] = yield* sql<{ toolId: string; principal: string; errorTag: string; connectionId: string; size: number }>`
        SELECT tool_id, principal, error_tag, connection_id, pg_column_size(a.*)::int AS size FROM audit_log a WHERE request_id = ${row.requestId}`
      assert.isAtMost(stored!.toolId.length, 200)
      assert.isTrue(stored!.toolId.endsWith("…[truncated]"))
      assert.strictEqual(stored!.connectionId, "conn_\uFFFDx")
      assert.isTrue(stored!.principal.startsWith("key\uFFFDttt"))
      assert.isAtMost(stored!.size, 2_000)
      const inTransaction = yield* sql.withTransaction(log.recordInTransaction(entry("ws_a", { toolId: `x\u0000${huge}` })))
      assert.isAtMost(inTransaction.toolId.length, 200)
      assert.isTrue((yield* Effect.flatMap(AuditVerify, (v) => v.verify())).ok)
    }).pipe(Effect.provide(AuditServices)))
})
