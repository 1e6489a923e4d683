import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Layer } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import type { ConnectionId } from "../../../schema/Ids.ts"
import type { Principal } from "../../../schema/Principal.ts"
import { SyncJobs } from "../../../services/sync/SyncJobs.ts"
import { allFinished, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { clearSpans, finishedSpans, spansNamed, SpansTest } from "../../support/Spans.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const claims = Effect.map(finishedSpans, (spans) => spansNamed(spans, "SyncJobs.claim").length)

/** The back-off waits the worker has finished since the spans were cleared, in milliseconds, in order. */
const backoffs = Effect.map(finishedSpans, (spans) =>
  spansNamed(spans, "SyncWorker.awaitWork").flatMap((span) => {
    const ms = span.attributes["sync.held_backoff_ms"]
    return typeof ms === "number" ? [ms] : []
  }))

const waitForBackoff = (ms: number) =>
  waitUntil(backoffs, (waits) => waits.includes(ms), { what: `the worker backing off ${ms} ms`, tries: 800 })

const appWithPoll = (url: Parameters<typeof databaseFromUrl>[0], pollMs: number) =>
  Layer.build(
    simulatedServices({ BREIN_SYNC_POLL_MS: String(pollMs) }).pipe(
      Layer.provideMerge(databaseFromUrl(url)),
      Layer.provideMerge(SpansTest)
    )
  )

/** A transaction holding the connection's row (as a delete or a settle does) until `letGo`; the job can still be queued. */
const holdConnection = (connectionId: ConnectionId) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const holding = yield* Deferred.make<void>()
    const letGo = yield* Deferred.make<void>()
    const holder = yield* sql.withTransaction(Effect.gen(function* () {
      yield* sql`SELECT 1 FROM connections WHERE id = ${connectionId} FOR NO KEY UPDATE`
      yield* Deferred.succeed(holding, undefined)
      yield* Deferred.await(letGo)
    })).pipe(Effect.fork)
    yield* Deferred.await(holding)
    return Effect.zipRight(Deferred.succeed(letGo, undefined), Fiber.join(holder))
  })

const enqueueOn = (principal: Principal, connectionId: ConnectionId) =>
  Effect.flatMap(SyncJobs, (jobs) =>
    jobs.enqueue(
      { connectionId, workspaceId: principal.workspaceId, connector: "sii" },
      [{ periodo: "2026-10", perspectiva: "ventas" }],
      3,
      4
    ))

describe("the sync worker", () => {
  it.scopedLive(
    "backs off while every due job's connection is held, from 10 ms doubling up to the poll, and claims the job once it is let go",
    () =>
      Effect.gen(function* () {
        const app = yield* appWithPoll(yield* freshDatabase, 1000)
        yield* Effect.gen(function* () {
          const { principal } = yield* issuePrincipal("paid")
          const held = yield* siiConnection(principal, rut(76500043))
          const letGo = yield* holdConnection(held.id)
          yield* clearSpans
          const start = yield* Clock.currentTimeMillis
          yield* enqueueOn(principal, held.id)
          const waits = yield* waitForBackoff(1000)
          const elapsed = (yield* Clock.currentTimeMillis) - start
          const tried = yield* claims
          // the waits were slept (a wake may cut one short): a claim before each, and perhaps the one after the last
          assert.isAtLeast(elapsed, 1270, `the worker backed off ${waits.join(", ")} ms without waiting`)
          assert.deepStrictEqual(waits.slice(0, 8), [10, 20, 40, 80, 160, 320, 640, 1000])
          assert.isAtMost(tried, waits.length + 2, `claims in ${elapsed} ms of the hold: ${tried}`)
          yield* letGo
          yield* waitForJobs(held.id, (jobs) => jobs[0]?.state !== "en_cola")
        }).pipe(Effect.provide(app))
      }),
    60_000
  )

  it.scopedLive(
    "a new job on a free connection ends the back-off at once: it does not wait out the back-off or the poll",
    () =>
      Effect.gen(function* () {
        const app = yield* appWithPoll(yield* freshDatabase, 60_000)
        yield* Effect.gen(function* () {
          const { principal } = yield* issuePrincipal("paid")
          const held = yield* siiConnection(principal, rut(76500044))
          const free = yield* siiConnection(principal, rut(76500045))
          const letGo = yield* holdConnection(held.id)
          yield* clearSpans
          yield* enqueueOn(principal, held.id)
          // the worker has waited 2.56 s once: it now waits 5.12 s before it claims again
          yield* waitForBackoff(2560)
          yield* enqueueOn(principal, free.id)
          yield* waitForJobs(free.id, allFinished)
          // the new job's wake ended that wait: the job did not wait it out (it would have finished after it, too)
          const [cut] = spansNamed(yield* finishedSpans, "SyncWorker.awaitWork").filter((span) =>
            span.attributes["sync.held_backoff_ms"] === 5120
          )
          assert.isDefined(cut, "the 5.12 s back-off ended")
          assert.isBelow(cut?.durationMs ?? Infinity, 5120, "the 5.12 s back-off was waited out")
          yield* letGo
        }).pipe(Effect.provide(app))
      }),
    30_000
  )
})
