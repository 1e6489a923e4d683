import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { ConnectionId, WorkspaceId } from "../../../schema/Ids.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { Persist, type PersistApi } from "../../../services/tools/Persist.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { createScratchTables, FixtureRegistry } from "./Fixtures.ts"

const leaked = Effect.map(SqlClient.SqlClient, (sql): PersistApi => ({
  sql,
  workspaceId: WorkspaceId.make("ws_leaked"),
  connectionId: ConnectionId.make("conn_leaked"),
  connector: "probe"
}))

/** A paid workspace with a probe connection, ready to sync. */
const syncer = Effect.gen(function* () {
  yield* createScratchTables
  const sql = yield* SqlClient.SqlClient
  const { principal } = yield* issuePrincipal("paid")
  const connectionId = ConnectionId.make(`conn_${randomBytes(6).toString("hex")}`)
  yield* sql`INSERT INTO connections (id, workspace_id, connector) VALUES (${connectionId}, ${principal.workspaceId}, 'probe')`
  const context = callContext(principal, { connectionId })
  const stored = sql<{ label: string }>`SELECT label FROM probe_items WHERE workspace_id = ${principal.workspaceId} ORDER BY label`.pipe(
    Effect.map((rows) => rows.map((r) => r.label))
  )
  return { principal, context, stored }
})

layer(servicesWith(FixtureRegistry).pipe(Layer.provideMerge(TestDatabase)))("read plane", (it) => {
  it.effect("what a read tool writes through Persist is committed when it succeeds", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { context, stored } = yield* syncer
      const response = yield* executor.call("probe.conexion.sincronizar", { labels: ["b", "a"] }, context)
      assert.deepStrictEqual(response.data, { written: 2, sameBuffer: true })
      assert.strictEqual(response.meta.plane, "read")
      assert.strictEqual(response.meta.audit_status, "recorded")
      assert.deepStrictEqual(yield* stored, ["a", "b"])
      const read = yield* executor.call("probe.items.consultar", {}, context)
      assert.deepStrictEqual(read.data, { labels: ["a", "b"] })
    }))

  it.effect("nothing is committed when the read tool fails after writing", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { context, stored } = yield* syncer
      yield* executor.call("probe.conexion.sincronizar", { labels: ["kept"] }, context)
      const error = yield* Effect.flip(
        executor.call("probe.conexion.sincronizar", { labels: ["lost-1", "lost-2"], failAfterWriting: true }, context)
      )
      assert.strictEqual(error._tag, "ToolFailed")
      assert.include(error.message, "the upstream dropped the session")
      assert.deepStrictEqual(yield* stored, ["kept"])
    }))

  it.effect("an action tool finds no Persist even when its caller provides one", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const response = yield* executor.call("persist_spy", {}, callContext(principal)).pipe(
        Effect.provideServiceEffect(Persist, leaked)
      )
      assert.deepStrictEqual(response.data, { sawPersist: false })
    }))

  it.effect("an action tool called from inside a read tool's transaction finds no Persist", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const sql = yield* SqlClient.SqlClient
      const { principal } = yield* issuePrincipal("paid")
      // What a read handler's fiber looks like: inside a transaction, with this call's buffer provided.
      const nested = executor.call("persist_spy", {}, callContext(principal)).pipe(
        Effect.provideServiceEffect(Persist, leaked),
        sql.withTransaction
      )
      assert.deepStrictEqual((yield* nested).data, { sawPersist: false })
    }))
})

layer(servicesWith(FixtureRegistry.pipe(Layer.provide(Layer.effect(Persist, leaked)))).pipe(Layer.provideMerge(TestDatabase)))(
  "a registry built where Persist is provided",
  (it) => {
    it.effect("does not hand that Persist to its action tools", () =>
      Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("free")
        const response = yield* (yield* Executor).call("persist_spy", {}, callContext(principal))
        assert.deepStrictEqual(response.data, { sawPersist: false })
      }))
  }
)
