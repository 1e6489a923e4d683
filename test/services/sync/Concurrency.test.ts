import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { execute, rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const Live = simulatedServices().pipe(Layer.provideMerge(TestDatabase))
const decodeSync = Schema.decodeUnknown(SyncOutput)

layer(Live, { excludeTestServices: true })("many callers at once", (it) => {
  // KNOWN BUG (reported, not fixed here): the executor holds a pooled connection in an open
  // transaction for the whole read-plane handler, and sincronizar waits for its jobs inside it while
  // SyncJobs.enqueue reserves a second connection. With as many callers as pooled connections (10)
  // every caller holds one and waits for another: the pool deadlocks and the whole process hangs
  // (with 6 callers it only starves: the worker's jobs cannot commit until the callers give up).
  // `.fails` pins the bug; drop it once the wait no longer holds a transaction.
  it.effect.fails("twelve concurrent sincronizar calls that wait for their jobs all finish (more callers than pooled connections)", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connections = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => rut(76950001 + i)), (user) => siiConnection(principal, user))
      const outputs = yield* Effect.forEach(
        connections,
        (connection) =>
          execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", perspectiva: "ventas", esperar: 3 }, connection.id).pipe(
            Effect.flatMap((r) => decodeSync(r.data))
          ),
        { concurrency: "unbounded" }
      ).pipe(Effect.timeoutOption("6 seconds"))
      assert.isTrue(Option.isSome(outputs), "every call answers within its esperar (3 s)")
      if (Option.isSome(outputs)) assert.deepStrictEqual(outputs.value.map((o) => o.estado), Array(12).fill("sincronizada"))
    }), { timeout: 20_000 })

})

layer(Live, { excludeTestServices: true })("the sync worker", (it) => {
  it.effect("the worker outlives a database outage: once the database is back, jobs run again", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, rut(76960001))
      const sql = yield* SqlClient.SqlClient
      // Every claim fails while the table is away, as it would while PostgreSQL restarts.
      yield* sql`ALTER TABLE sync_jobs RENAME TO sync_jobs_away`
      yield* Effect.sleep("300 millis")
      yield* sql`ALTER TABLE sync_jobs_away RENAME TO sync_jobs`
      const response = yield* execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", perspectiva: "ventas", esperar: 10 }, connection.id)
      assert.strictEqual((yield* decodeSync(response.data)).estado, "sincronizada")
    }), { timeout: 30_000 })
})
