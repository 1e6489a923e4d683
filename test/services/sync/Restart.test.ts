import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schedule, Schema, Scope } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { rcvDocuments } from "../../../services/upstream/RcvGenerator.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { countRows, execute, jobsOf, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { SUITE_DAY } from "../../support/SuiteClock.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const PERIODO = "2026-10"

/** One "process": its own pool, worker and simulators over the shared database. */
const processOn = (url: Parameters<typeof databaseFromUrl>[0], settings: Readonly<Record<string, string>>, timeScale: number) =>
  simulatedServices(settings, timeScale).pipe(Layer.provideMerge(databaseFromUrl(url)))

/**
 * Starts a sync on a slow "process", closes that process while the job is mid-sync (after the login,
 * while it reads the detail), and answers what the interrupted run left behind.
 */
const interruptedSync = (maxAttempts: number, user: ReturnType<typeof rut>) =>
  Effect.gen(function* () {
    const url = yield* freshDatabase
    const first = yield* Scope.make()
    const slow = yield* Layer.buildWithScope(
      processOn(url, { BREIN_SYNC_LEASE_SECONDS: "1", BREIN_SYNC_MAX_ATTEMPTS: String(maxAttempts) }, 0.05),
      first
    )
    const connectionId = yield* Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, user)
      yield* execute(principal, "sii.conexion.sincronizar", { periodo: PERIODO, perspectiva: "compras", esperar: 0 }, connection.id)
      yield* waitForJobs(connection.id, (jobs) => jobs[0]?.state === "sincronizando" && jobs[0].progress.done >= 1)
      return connection.id
    }).pipe(Effect.provide(slow))
    yield* Scope.close(first, Exit.void)
    const left = yield* snapshot(connectionId).pipe(Effect.provide(yield* Layer.build(databaseFromUrl(url))))
    return { url, connectionId, left }
  })

const Settled = Schema.Struct({
  jobs: Schema.Array(Schema.Tuple(Schema.String, Schema.Int, Schema.NullOr(Schema.String))),
  connection: Schema.String
})

/**
 * Waits until every job of the connection is final, reading the jobs and the connection in one
 * statement: what it answers is one moment, the moment a reader first sees the jobs final.
 */
const waitForSettled = (connectionId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT json_build_object(
          'jobs', (SELECT json_agg(json_build_array(state, attempts, error_reason)) FROM sync_jobs WHERE connection_id = ${connectionId}),
          'connection', (SELECT state FROM connections WHERE id = ${connectionId})) AS snapshot`.pipe(
      Effect.flatMap((rows) => Schema.decodeUnknown(Schema.Tuple(Schema.Struct({ snapshot: Settled })))(rows)),
      Effect.map(([row]) => row.snapshot),
      Effect.orDie,
      (read) =>
        waitUntil(read, (s) => s.jobs.every(([state]) => ["sincronizada", "parcial", "error"].includes(state)), { what: "every job final" })
    ))

const snapshot = (connectionId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* sql<
      { state: string; attempts: number }
    >`SELECT state, attempts FROM sync_jobs WHERE connection_id = ${connectionId}`
    return {
      jobs,
      documents: yield* countRows("rcv_documents", connectionId),
      coverage: yield* countRows("sync_coverage", connectionId),
      history: yield* countRows("cache_history", connectionId)
    }
  })

describe("a process that dies mid-sync", () => {
  it.scopedLive("leaves no partial scope, and a fresh process retries the job to completion (attempts = 2)", () =>
    Effect.gen(function* () {
      const user = rut(76200001)
      const { connectionId, left, url } = yield* interruptedSync(3, user)
      assert.deepStrictEqual(left, { jobs: [{ state: "sincronizando", attempts: 1 }], documents: 0, coverage: 0, history: 0 })

      const restarted = yield* Layer.build(processOn(url, {}, 0))
      yield* Effect.gen(function* () {
        const settled = yield* waitForSettled(connectionId)
        const expected = rcvDocuments(user, PERIODO, "compras", SUITE_DAY)
        assert.deepStrictEqual(settled, { jobs: [["sincronizada", 2, null]], connection: "sincronizada" })
        const [job] = yield* jobsOf(connectionId)
        assert.strictEqual(job?.counts["nuevos"], expected.length)
        const sql = yield* SqlClient.SqlClient
        const [rows] = yield* sql<{ n: number; keys: number; versions: number }>`
          SELECT count(*)::int AS n, count(DISTINCT natural_key)::int AS keys, max(version)::int AS versions
          FROM rcv_documents WHERE connection_id = ${connectionId}`
        assert.deepStrictEqual(rows, { n: expected.length, keys: expected.length, versions: 1 })
        assert.strictEqual(yield* countRows("sync_coverage", connectionId), 1)
        assert.strictEqual(yield* countRows("cache_history", connectionId), 0)
      }).pipe(Effect.provide(restarted))
    }), 60_000)

  it.scopedLive(
    "when its attempts are exhausted, the fresh process fails the job instead of running it again",
    () =>
      Effect.gen(function* () {
        const { connectionId, left, url } = yield* interruptedSync(1, rut(76200002))
        assert.deepStrictEqual(left, { jobs: [{ state: "sincronizando", attempts: 1 }], documents: 0, coverage: 0, history: 0 })

        const restarted = yield* Layer.build(processOn(url, {}, 0))
        yield* Effect.gen(function* () {
          const settled = yield* waitForSettled(connectionId)
          assert.deepStrictEqual(settled, { jobs: [["error", 2, "intentos_agotados"]], connection: "error" })
          assert.deepStrictEqual(yield* snapshot(connectionId), {
            jobs: [{ state: "error", attempts: 2 }],
            documents: 0,
            coverage: 0,
            history: 0
          })
          const sql = yield* SqlClient.SqlClient
          const [connection] = yield* sql<
            { state: string; stateReason: string | null }
          >`SELECT state, state_reason FROM connections WHERE id = ${connectionId}`
          assert.deepStrictEqual(connection, { state: "error", stateReason: "intentos_agotados" })
        }).pipe(Effect.provide(restarted))
      }),
    60_000
  )
})

describe("a connection deleted mid-sync", () => {
  it.scopedLive("leaves no row behind, and the user's session lock is free again", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const user = rut(76200003)
      yield* Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        const doomed = yield* siiConnection(principal, user)
        yield* execute(principal, "sii.conexion.sincronizar", { periodo: PERIODO, perspectiva: "compras", esperar: 0 }, doomed.id)
        yield* waitForJobs(doomed.id, (jobs) => jobs[0]?.state === "sincronizando" && jobs[0].progress.done >= 1)
        yield* (yield* Connections).remove(principal, doomed.id)
        const simulator = yield* SiiSimulator
        yield* Effect.repeat(simulator.sessions, {
          until: (events) => events.some((e) => e.rut === user && e.kind === "end"),
          schedule: Schedule.spaced("25 millis")
        })
        const sql = yield* SqlClient.SqlClient
        for (const table of ["rcv_documents", "sync_coverage", "cache_history", "sync_jobs"] as const) {
          const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE connection_id = ${doomed.id}`
          assert.strictEqual(row?.n, 0, table)
        }
        const again = yield* siiConnection(principal, user)
        const response = yield* execute(
          principal,
          "sii.conexion.sincronizar",
          { periodo: PERIODO, perspectiva: "compras", esperar: 20 },
          again.id
        )
        assert.strictEqual((response.data as { estado: string }).estado, "sincronizada")
      }).pipe(Effect.provide(yield* Layer.build(processOn(url, {}, 0.05))))
    }), 60_000)
})
