import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Clock, Config, ConfigProvider, Console, Effect, Layer, Option, Redacted } from "effect"
import { Schema } from "effect"
import { servicesOver } from "../../layers/App.ts"
import { connectedWith } from "../../layers/Connected.ts"
import { CrmToolsLive } from "../../layers/Crm.ts"
import { databaseFromUrl } from "../../layers/Database.ts"
import { LoggingLive } from "../../layers/Logging.ts"
import { ModelGatewayLive } from "../../layers/LunaModel.ts"
import { sources } from "../../layers/Registry.ts"
import { Rut } from "../../schema/upstream/Rut.ts"
import { Connections } from "../../services/connections/Connections.ts"
import { RcvResource } from "../../services/connectors/sii/RcvResource.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import { BancoSimulator } from "../../services/upstream/BancoSimulator.ts"
import { todayInChile } from "../../services/upstream/CivilDate.ts"
import { IndicadoresSimulator } from "../../services/upstream/IndicadoresSource.ts"
import { rcvDocuments } from "../../services/upstream/RcvGenerator.ts"
import { SiiSimulator } from "../../services/upstream/SiiSimulator.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { MANY, settingsFirst, wholeNumber } from "./Settings.ts"
import { sharedDatabase } from "./SharedDatabase.ts"

const PERIODO = "2026-06"
const RUT = Schema.decodeSync(Rut)("77123456-9")

const settings = Config.all({
  documents: wholeNumber("BENCH_DOCUMENTS", { min: 1, max: MANY, unit: "documents" }, 100_000),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL"))
})

const rawInsert = (documents: ReturnType<typeof rcvDocuments>, connectionId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DROP TABLE IF EXISTS bench_rcv_raw`
    // The same table as the cache: columns, defaults, indexes and the foreign key to its connection.
    yield* sql`CREATE TABLE bench_rcv_raw (LIKE rcv_documents INCLUDING DEFAULTS INCLUDING INDEXES,
                 FOREIGN KEY (connection_id) REFERENCES connections (id) ON DELETE CASCADE)`
    const columns = ["natural_key", ...RcvResource.columns.map((c) => c.name)]
    const types = ["text", ...RcvResource.columns.map((c) => c.type)]
    const statement = `INSERT INTO bench_rcv_raw (connection_id, ${columns.join(", ")}, content_hash, synced_at)
      SELECT $${columns.length + 1}, t.*, '', now() FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(", ")}) AS t`
    const started = yield* Clock.currentTimeMillis
    yield* Effect.gen(function* () {
      for (let start = 0; start < documents.length; start += 10_000) {
        const chunk = documents.slice(start, start + 10_000)
        const arrays = columns.map(() => [] as Array<unknown>)
        for (const doc of chunk) {
          arrays[0]!.push(RcvResource.naturalKey(doc))
          RcvResource.values(doc).forEach((v, i) => arrays[i + 1]!.push(v))
        }
        yield* sql.unsafe(statement, [...arrays, connectionId])
      }
    }).pipe(sql.withTransaction)
    const elapsed = (yield* Clock.currentTimeMillis) - started
    yield* sql`DROP TABLE bench_rcv_raw`
    return elapsed
  })

const program = Effect.gen(function* () {
  const { documents, databaseUrl } = yield* settings
  const database = yield* sharedDatabase(databaseUrl)
  yield* Console.log(`bench:sync  ${documents} RCV documents of one period (simulator at zero latency) on ${database.label}`)
  const upstreams = Layer.merge(
    SiiSimulator.layerWith({ timeScale: 0, documentsPerPeriod: documents }),
    BancoSimulator.layerWith({ timeScale: 0 })
  )
  const config = ConfigProvider.fromMap(
    new Map([["BREIN_SECRET_KEY", Buffer.alloc(32, 7).toString("base64")], ["BREIN_SYNC_POLL_MS", "50"]])
  )
  const app = servicesOver(sources, connectedWith(upstreams)).pipe(
    Layer.provide(IndicadoresSimulator.layerWith({ timeScale: 0 })),
    Layer.provide(CrmToolsLive),
    Layer.provide(ModelGatewayLive),
    Layer.provideMerge(databaseFromUrl(Redacted.make(database.url))),
    Layer.provide(Layer.setConfigProvider(config))
  )
  yield* Effect.gen(function* () {
    const today = yield* todayInChile
    const started0 = yield* Clock.currentTimeMillis
    // The simulator keeps a generated period; generating it is not the sync's work.
    const generated = rcvDocuments(RUT, PERIODO, "ventas", today, documents)
    const principal = yield* (yield* Workspaces).inProcess(`bench-sync-${started0}`, "paid")
    const connection = yield* (yield* Connections).create(principal, {
      connector: "sii",
      credentials: { rut: RUT, clave: Redacted.make("bench") }
    })
    const started = yield* Clock.currentTimeMillis
    const response = yield* (yield* Executor).call(
      "sii.conexion.sincronizar",
      { periodo: PERIODO, perspectiva: "ventas", esperar: 55 },
      { surface: "library", principal, connectionId: connection.id }
    )
    const syncMs = (yield* Clock.currentTimeMillis) - started
    const baselineMs = yield* rawInsert(generated, connection.id)
    yield* (yield* SqlClient.SqlClient)`DELETE FROM connections WHERE id = ${connection.id}`
    const job = Option.fromNullable(
      (response.data as { trabajos?: ReadonlyArray<{ state: string; counts: Record<string, number> }> }).trabajos?.[0]
    )
    const state = Option.match(job, { onNone: () => "?", onSome: (j) => `${j.state}, ${j.counts["nuevos"] ?? 0} new rows` })
    const rate = (ms: number) => Math.round((generated.length / ms) * 1000)
    const ratio = baselineMs / syncMs
    yield* Console.log(
      [
        "",
        `  brein sincronizar (job, login, read, normalize, upsert with history): ${syncMs} ms  ${rate(syncMs)} docs/s  [${state}]`,
        `  raw bulk INSERT of the same rows (unnest, same table shape, one tx):   ${baselineMs} ms  ${rate(baselineMs)} docs/s`,
        `  ratio brein/raw: ${ratio.toFixed(2)}×   goal ≥ 0.5×: ${ratio >= 0.5 ? "met" : "MISSED"}`,
        ""
      ].join("\n")
    )
  }).pipe(Effect.provide(app))
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, LoggingLive)),
  settingsFirst(settings),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
