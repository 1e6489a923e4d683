import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { createScratchTables, FixtureRegistry } from "./Fixtures.ts"

const Services = servicesWith(FixtureRegistry).pipe(Layer.provideMerge(TestDatabase))

// A cancel request (pg_cancel_backend) from outside brein (an operator, a proxy) can reach any statement.
// brein's own, sent for an interrupted fiber's statement, reaches no other (test/layers/PgPool.test.ts).
layer(Services, { excludeTestServices: true, timeout: 60_000 })("a statement canceled from outside its call", (it) => {
  it.effect("is a transient failure: the call answers ServiceUnavailable (never ToolFailed) and writes nothing", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* createScratchTables
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const text = `canceled ${principal.workspaceId}`

      // Fault injection: the note's INSERT waits on a lock the test holds, and the test cancels it there.
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(sql.withTransaction(Effect.gen(function* () {
        yield* sql`LOCK TABLE probe_notes IN ACCESS EXCLUSIVE MODE`
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(locked)
      const call = yield* Effect.fork(executor.call("note_write", { text }, callContext(principal)))
      const canceled = yield* Effect.gen(function* () {
        const [waiting] = yield* waitUntil(
          sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
            AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO probe_notes%'`,
          (rows) => rows.length > 0,
          { what: "the note's INSERT waiting on the lock" }
        )
        const [sent] = yield* sql<{ ok: boolean }>`SELECT pg_cancel_backend(${waiting?.pid ?? 0}) AS ok`
        return sent?.ok === true
      }).pipe(Effect.ensuring(Deferred.succeed(release, undefined)))
      yield* Fiber.join(holder)
      assert.isTrue(canceled, "the cancel request reached the statement")

      const error = yield* Effect.flip(Fiber.join(call))
      assert.strictEqual(error._tag, "ServiceUnavailable", JSON.stringify(error))
      const [kept] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM probe_notes WHERE text = ${text}`
      assert.strictEqual(kept?.n, 0, "nothing was written")
      const [row] = yield* sql<{ errorTag: string | null }>`
        SELECT a.error_tag FROM audit_log a WHERE a.workspace_id = ${principal.workspaceId} AND a.tool_id = 'note_write'`
      assert.strictEqual(row?.errorTag, "ServiceUnavailable", "its audit row says what the caller was told")
    }))
})
