import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { createScratchTables, FixtureRegistry } from "./Fixtures.ts"

const Services = servicesWith(FixtureRegistry).pipe(Layer.provideMerge(TestDatabase))

/** Runs `statement` in a transaction of the test's own and holds what it locks until the returned effect runs. */
const holding = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const holder = yield* Effect.fork(sql.withTransaction(Effect.gen(function* () {
      yield* Effect.orDie(statement(sql))
      yield* Deferred.succeed(locked, undefined)
      yield* Deferred.await(release)
    })))
    yield* Deferred.await(locked)
    return Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(holder))
  })

/** Waits until a statement whose SQL starts with `start` waits on a lock. */
const waitingOnLock = (start: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    waitUntil(
      sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
        AND wait_event_type = 'Lock' AND query LIKE ${`${start}%`}`,
      (rows) => rows.length > 0,
      { what: `a statement (${start}…) waiting on a lock` }
    ))

const rowsOf = (workspaceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ outcome: string; errorTag: string | null }>`
      SELECT a.outcome, a.error_tag FROM audit_log a WHERE a.workspace_id = ${workspaceId} AND a.tool_id = 'note_write'`)

const notesOf = (text: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM probe_notes WHERE text = ${text}`)
    .pipe(Effect.map((rows) => rows[0]?.n))

layer(Services, { excludeTestServices: true, timeout: 60_000 })("a call whose caller leaves", (it) => {
  it.effect("while its handler runs: the handler stops, nothing is written, and the call's row says Interrupted", () =>
    Effect.gen(function* () {
      yield* createScratchTables
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const text = `interrupted ${principal.workspaceId}`

      // Fault injection: the note's INSERT waits on a lock the test holds, and the call is interrupted there.
      const release = yield* holding((sql) => sql`LOCK TABLE probe_notes IN ACCESS EXCLUSIVE MODE`)
      const call = yield* Effect.fork(executor.call("note_write", { text }, callContext(principal)))
      yield* waitingOnLock("INSERT INTO probe_notes")
      yield* Fiber.interrupt(call)
      yield* release

      assert.deepStrictEqual(yield* rowsOf(principal.workspaceId), [{ outcome: "error", errorTag: "Interrupted" }])
      assert.strictEqual(yield* notesOf(text), 0, "the handler's write was rolled back")
    }))

  it.effect("once its handler is done: the call commits and writes its row, then ends interrupted", () =>
    Effect.gen(function* () {
      yield* createScratchTables
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const text = `audited ${principal.workspaceId}`

      // Fault injection: the call's audit row (in its transaction) waits on its chain's lock, which the test holds.
      const release = yield* holding((sql) => sql`SELECT pg_advisory_xact_lock(hashtextextended(${principal.workspaceId}, 0))`)
      const call = yield* Effect.fork(executor.call("note_write", { text }, callContext(principal)))
      yield* waitingOnLock("SELECT pg_advisory_xact_lock(hashtextextended(")
      yield* Fiber.interruptFork(call)
      yield* release
      const exit = yield* Fiber.await(call)

      assert.isTrue(Exit.isInterrupted(exit), `the call was interrupted while it waited: ${JSON.stringify(exit)}`)
      assert.deepStrictEqual(yield* rowsOf(principal.workspaceId), [{ outcome: "ok", errorTag: null }])
      assert.strictEqual(yield* notesOf(text), 1, "the handler's write was committed with the row")
    }))
})
