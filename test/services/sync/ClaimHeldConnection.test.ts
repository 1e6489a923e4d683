import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Option } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { SyncJobs } from "../../../services/sync/SyncJobs.ts"
import { rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const LEASE = Duration.minutes(5)

describe("claiming sync jobs", () => {
  it.scopedLive(
    "skips a connection a transaction holds (a delete takes it before its jobs): never waits for it, so never deadlocks with it",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const app = yield* Layer.build(
          simulatedServices({ BREIN_SYNC_WORKER: "false" }).pipe(Layer.provideMerge(databaseFromUrl(url)))
        )
        yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const jobs = yield* SyncJobs
          const { principal } = yield* issuePrincipal("paid")
          const held = yield* siiConnection(principal, rut(76500041))
          const free = yield* siiConnection(principal, rut(76500042))
          const scope = [{ periodo: "2026-10", perspectiva: "ventas" }]
          // the held connection's job is the earlier one: the claim looks at it first
          yield* jobs.enqueue({ connectionId: held.id, workspaceId: principal.workspaceId, connector: "sii" }, scope, 3, 4)
          yield* jobs.enqueue({ connectionId: free.id, workspaceId: principal.workspaceId, connector: "sii" }, scope, 3, 4)

          const holding = yield* Deferred.make<void>()
          const letGo = yield* Deferred.make<void>()
          const holder = yield* sql.withTransaction(Effect.gen(function* () {
            yield* sql`SELECT 1 FROM connections WHERE id = ${held.id} FOR UPDATE`
            yield* Deferred.succeed(holding, undefined)
            yield* Deferred.await(letGo)
          })).pipe(Effect.fork)
          yield* Deferred.await(holding)

          const first = yield* jobs.claim(LEASE).pipe(
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the claim waited for the held connection") })
          )
          assert.deepStrictEqual(Option.map(first, (batch) => batch.map((job) => job.connectionId)), Option.some([free.id]))

          yield* Deferred.succeed(letGo, undefined)
          yield* Fiber.join(holder)
          const next = yield* jobs.claim(LEASE)
          assert.deepStrictEqual(Option.map(next, (batch) => batch.map((job) => job.connectionId)), Option.some([held.id]))
        }).pipe(Effect.provide(app))
      }),
    60_000
  )
})
