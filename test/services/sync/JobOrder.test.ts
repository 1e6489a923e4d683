import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Array as Arr, Duration, Effect, Layer, Option } from "effect"
import type { Principal } from "../../../schema/Principal.ts"
import { type ClaimedJob, SyncJobs } from "../../../services/sync/SyncJobs.ts"
import { allFinished, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { SUITE_NOW } from "../../support/SuiteClock.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

/** Enough syncs that jobs run in the order of their random ids would pass by chance about once in a million runs. */
const SYNCS = 20
const LEASE = Duration.minutes(5)

/** Scopes in an order that is neither their keys' order nor any order of their ids. */
const FIRST = [
  { periodo: "2026-10", perspectiva: "ventas" },
  { periodo: "2026-10", perspectiva: "compras" }
]
const SECOND = [
  { periodo: "2026-09", perspectiva: "ventas" },
  { periodo: "2026-08", perspectiva: "compras" }
]

const connectionsOf = (principal: Principal, first: number) =>
  Effect.forEach(Arr.range(first, first + SYNCS - 1), (body) => siiConnection(principal, rut(body)))

const enqueue = (principal: Principal, connectionId: string, scopes: ReadonlyArray<Readonly<Record<string, string>>>) =>
  Effect.flatMap(SyncJobs, (jobs) => jobs.enqueue({ connectionId, workspaceId: principal.workspaceId, connector: "sii" }, scopes, 3, 4))

/** Every due job, batch by batch as workers would take them (a connection's jobs together), held for the test. */
const claimAll = Effect.gen(function* () {
  const jobs = yield* SyncJobs
  const batches: Array<ReadonlyArray<ClaimedJob>> = []
  for (let next = yield* jobs.claim(LEASE); Option.isSome(next); next = yield* jobs.claim(LEASE)) batches.push(next.value)
  return batches
})

const byConnection = (batches: ReadonlyArray<ReadonlyArray<ClaimedJob>>) =>
  new Map(batches.map((batch) => [batch[0]?.connectionId ?? "", batch.map((job) => job.scope)] as const))

const Queueing = simulatedServices({ BREIN_SYNC_WORKER: "false" }).pipe(Layer.provideMerge(TestDatabase))

layer(Queueing, { excludeTestServices: true })("the jobs of a sync in the order of its scopes", (it) => {
  it.effect("jobs queued by one statement (one millisecond) are claimed in the order of their scopes", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connections = yield* connectionsOf(principal, 76680001)
      for (const connection of connections) yield* enqueue(principal, connection.id, FIRST)

      const claimed = byConnection(yield* claimAll)
      assert.deepStrictEqual([...claimed.keys()].sort(), connections.map((c) => c.id).sort(), "one batch per connection")
      for (const connection of connections) assert.deepStrictEqual(claimed.get(connection.id), FIRST, connection.id)
    }))

  it.effect("two syncs queued at the same instant: claimed in the order they were queued, listed newest first", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const jobs = yield* SyncJobs
      const { principal } = yield* issuePrincipal("paid")
      const connections = yield* connectionsOf(principal, 76681001)
      for (const connection of connections) {
        yield* enqueue(principal, connection.id, FIRST)
        yield* enqueue(principal, connection.id, SECOND)
      }
      // Both syncs at one instant, as PostgreSQL's clock can give two statements (or every row of one).
      yield* sql`UPDATE sync_jobs SET created_at = ${new Date(SUITE_NOW)} WHERE connection_id IN ${sql.in(connections.map((c) => c.id))}`

      for (const connection of connections) {
        const listed = yield* jobs.list(connection.id, 10)
        assert.deepStrictEqual(listed.map((job) => job.scope), [...FIRST, ...SECOND].reverse(), connection.id)
      }
      const claimed = byConnection(yield* claimAll)
      for (const connection of connections) assert.deepStrictEqual(claimed.get(connection.id), [...FIRST, ...SECOND], connection.id)
    }))
})

const Working = simulatedServices().pipe(Layer.provideMerge(TestDatabase))

layer(Working, { excludeTestServices: true })("a sync's jobs run in the order of its scopes", (it) => {
  it.effect("both SII perspectives of a period: ventas is read before compras, sync after sync", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { principal } = yield* issuePrincipal("paid")
      const periodo = yield* monthsAgo(1)
      const connections = yield* connectionsOf(principal, 76682001)
      for (const connection of connections) {
        yield* execute(principal, "sii.conexion.sincronizar", { periodo, esperar: 0 }, connection.id)
      }
      for (const connection of connections) yield* waitForJobs(connection.id, allFinished)

      // each job of a batch commits its end before the next one is read
      const runs = yield* sql<{ connectionId: string; perspectivas: ReadonlyArray<string> }>`
        SELECT connection_id, array_agg(scope ->> 'perspectiva' ORDER BY finished_at) AS perspectivas FROM sync_jobs
        WHERE connection_id IN ${sql.in(connections.map((c) => c.id))} AND state = 'sincronizada' GROUP BY connection_id`
      assert.strictEqual(runs.length, SYNCS)
      for (const run of runs) assert.deepStrictEqual(run.perspectivas, ["ventas", "compras"], run.connectionId)
    }), { timeout: 60_000 })
})
