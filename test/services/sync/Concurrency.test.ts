import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { allFinished, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import { RecordedLogs, RecordLogs } from "../../support/TestLogging.ts"

const Live = simulatedServices().pipe(Layer.provideMerge(TestDatabase))
const decodeSync = Schema.decodeUnknown(SyncOutput)

const callers = (n: number, first: number, esperar: number) =>
  Effect.gen(function* () {
    const { principal } = yield* issuePrincipal("paid")
    const connections = yield* Effect.forEach(Array.from({ length: n }, (_, i) => rut(first + i)), (user) => siiConnection(principal, user))
    const answers = yield* Effect.forEach(
      connections,
      (connection) =>
        execute(principal, "sii.conexion.sincronizar", { periodo: "2026-10", perspectiva: "ventas", esperar }, connection.id).pipe(
          Effect.flatMap((r) => Effect.map(decodeSync(r.data), (data) => ({ estado: data.estado, warnings: r.warnings ?? [] })))
        ),
      { concurrency: "unbounded" }
    )
    return { connections, answers }
  })

layer(Live, { excludeTestServices: true })("many callers at once", (it) => {
  it.effect("twelve concurrent sincronizar calls all wait after their commit and answer without a warning", () =>
    Effect.gen(function* () {
      const { answers, connections } = yield* callers(12, 76950001, 5)
      assert.strictEqual(answers.length, 12)
      for (const answer of answers) assert.deepStrictEqual(answer.warnings, [])
      for (const connection of connections) yield* waitForJobs(connection.id, allFinished)
    }), { timeout: 30_000 })
})

layer(Live, { excludeTestServices: true })("as many callers as pooled connections", (it) => {
  // A caller commits its job with its audit row and waits after the commit, holding no connection.
  it.effect(
    "40 concurrent sincronizar calls (twice the pool) all answer, none hangs on the pool, and every job runs",
    () =>
      Effect.gen(function* () {
        const { answers, connections } = yield* callers(40, 76951001, 2)
        assert.strictEqual(answers.length, 40)
        for (const connection of connections) yield* waitForJobs(connection.id, allFinished)
      }),
    { timeout: 30_000 }
  )
})

layer(Live.pipe(Layer.provideMerge(RecordLogs)), { excludeTestServices: true })("the sync worker", (it) => {
  it.effect("the worker outlives a database outage: once the database is back, jobs run again", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, rut(76960001))
      const sql = yield* SqlClient.SqlClient
      const logs = yield* RecordedLogs
      const workerFailures = Effect.map(logs.lines, (lines) =>
        lines.filter((l) => l.includes(`message="sync worker"`) && l.includes("sync_jobs")).length)
      const before = yield* workerFailures
      // Every claim fails while the table is away, as it would while PostgreSQL restarts.
      yield* sql`ALTER TABLE sync_jobs RENAME TO sync_jobs_away`
      yield* waitUntil(workerFailures, (n) =>
        n > before, { what: "the worker failing to claim while the table is away" })
      yield* sql`ALTER TABLE sync_jobs_away RENAME TO sync_jobs`
      const response = yield* execute(
        principal,
        "sii.conexion.sincronizar",
        { periodo: "2026-10", perspectiva: "ventas", esperar: 10 },
        connection.id
      )
      assert.strictEqual((yield* decodeSync(response.data)).estado, "sincronizada")
    }), { timeout: 30_000 })
})
