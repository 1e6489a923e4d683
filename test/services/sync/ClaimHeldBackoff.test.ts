import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { SyncJobs } from "../../../services/sync/SyncJobs.ts"
import { rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { clearSpans, finishedSpans, spansNamed, SpansTest } from "../../support/Spans.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const claims = Effect.map(finishedSpans, (spans) => spansNamed(spans, "SyncJobs.claim").length)

describe("the sync worker", () => {
  it.scopedLive(
    "backs off while every due job's connection is held, and claims the job once it is let go",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const app = yield* Layer.build(
          simulatedServices({ BREIN_SYNC_POLL_MS: "1000" }).pipe(Layer.provideMerge(databaseFromUrl(url)), Layer.provideMerge(SpansTest))
        )
        yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const { principal } = yield* issuePrincipal("paid")
          const held = yield* siiConnection(principal, rut(76500043))
          const holding = yield* Deferred.make<void>()
          const letGo = yield* Deferred.make<void>()
          const holder = yield* sql.withTransaction(Effect.gen(function* () {
            yield* sql`SELECT 1 FROM connections WHERE id = ${held.id} FOR NO KEY UPDATE`
            yield* Deferred.succeed(holding, undefined)
            yield* Deferred.await(letGo)
          })).pipe(Effect.fork)
          yield* Deferred.await(holding)
          yield* clearSpans
          yield* Effect.flatMap(SyncJobs, (jobs) =>
            jobs.enqueue(
              { connectionId: held.id, workspaceId: principal.workspaceId, connector: "sii" },
              [{
                periodo: "2026-10",
                perspectiva: "ventas"
              }],
              3,
              4
            ))
          // the worker hears of the job and finds its connection held: wait until it has tried a few times
          yield* waitUntil(claims, (n) => n >= 5, { what: "the worker trying to claim the held job", tries: 400 })
          const before = yield* claims
          yield* Effect.sleep("1500 millis")
          const during = (yield* claims) - before
          assert.isAtMost(during, 15, `claims in 1.5 s while the connection was held: ${during}`)
          yield* Deferred.succeed(letGo, undefined)
          yield* Fiber.join(holder)
          yield* waitForJobs(held.id, (jobs) => jobs[0]?.state !== "en_cola")
        }).pipe(Effect.provide(app))
      }),
    60_000
  )
})
