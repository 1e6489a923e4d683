import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { SyncWorker } from "../../../services/sync/SyncWorker.ts"
import { allFinished, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const processOn = (url: Parameters<typeof databaseFromUrl>[0], settings: Readonly<Record<string, string>>, timeScale: number) =>
  simulatedServices(settings, timeScale).pipe(Layer.provideMerge(databaseFromUrl(url)))

describe("a worker that stops mid-sync", () => {
  it.scopedLive(
    "on a shutdown's stop hands its job back at once, its attempt unspent, and the next worker runs it without waiting for the lease",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const stopping = yield* Scope.make()
        // a slow login and a long lease: without the hand-back the job would wait 60 s for another worker
        const slow = yield* Layer.buildWithScope(processOn(url, { BREIN_SYNC_LEASE_SECONDS: "60" }, 0.05), stopping)
        const connectionId = yield* Effect.gen(function* () {
          const { principal } = yield* issuePrincipal("paid")
          const connection = yield* siiConnection(principal, rut(76880001))
          yield* execute(
            principal,
            "sii.conexion.sincronizar",
            { periodo: yield* monthsAgo(1), perspectiva: "ventas", esperar: 0 },
            connection.id
          )
          yield* waitForJobs(connection.id, (jobs) => jobs[0]?.state === "sincronizando")
          // what `brein serve` does on SIGTERM once its HTTP server has drained
          yield* Effect.flatMap(SyncWorker, (worker) => worker.stop)
          return connection.id
        }).pipe(Effect.provide(slow))
        yield* Scope.close(stopping, Exit.void)

        const left = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ readonly state: string; readonly attempts: number; readonly due: boolean }>`
          SELECT state, attempts, run_after <= now() AS due FROM sync_jobs WHERE connection_id = ${connectionId}`).pipe(
            Effect.provide(databaseFromUrl(url))
          )
        assert.deepStrictEqual(left, [{ state: "en_cola", attempts: 0, due: true }], "a stopped worker leaves no job leased to itself")

        const next = yield* Layer.build(processOn(url, {}, 0))
        const [done] = yield* waitForJobs(connectionId, allFinished, "10 seconds").pipe(Effect.provide(next))
        assert.strictEqual(done?.state, "sincronizada")
        assert.strictEqual(done?.attempts, 1, "the interrupted run did not spend an attempt")
      }),
    60_000
  )
})
