import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema } from "effect"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { SyncJobs } from "../../../services/sync/SyncJobs.ts"
import { execute, rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

// No worker runs here: every job stays queued, so every caller waits its whole `esperar`: long enough that the
// first callers still wait when the last one commits, however loaded the machine (3 s was not, under load).
const Live = simulatedServices({ BREIN_SYNC_WORKER: "false" }).pipe(Layer.provideMerge(TestDatabase))
const decodeSync = Schema.decodeUnknown(SyncOutput)
const CALLERS = 50

layer(Live, { excludeTestServices: true })("waiting for a sync after the commit", (it) => {
  it.effect(
    "50 callers waiting at once hold no database connection: none is in a transaction or busy while they wait",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { principal } = yield* issuePrincipal("paid")
        const connections = yield* Effect.forEach(
          Array.from({ length: CALLERS }, (_, i) => rut(77100001 + i)),
          (user) => siiConnection(principal, user)
        )
        const waiting = yield* Effect.fork(Effect.forEach(
          connections,
          (connection) =>
            execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", perspectiva: "ventas", esperar: 15 }, connection.id),
          { concurrency: "unbounded" }
        ))
        // Every call committed its job (and its audit row) and now waits on the shared watcher.
        yield* waitUntil((yield* SyncJobs).watching, (n) => n === CALLERS, { what: "every caller waiting after its commit" })
        // Connections to this database doing anything but idling in the pool (other than this query itself).
        const busy = sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
                                       WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0)
        )
        const samples = yield* Effect.forEach(Array.from({ length: 20 }), () => busy)
        // At most the shared watcher's one query per tick may be running when a sample is taken.
        assert.isAtMost(Math.max(...samples), 1, `busy connections while ${CALLERS} callers wait: ${samples.join(", ")}`)
        const answers = yield* Fiber.join(waiting)
        assert.strictEqual(answers.length, CALLERS)
        for (const answer of answers) {
          assert.strictEqual((yield* decodeSync(answer.data)).estado, "en_cola")
          assert.strictEqual(answer.meta.audit_status, "recorded")
          assert.include(answer.hint ?? "", "goes on in the background")
        }
      }),
    { timeout: 60_000 }
  )
})
