import { Reactivity } from "@effect/experimental"
import { FetchHttpClient, FileSystem } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Clock, Config, Console, Duration, Effect, Layer, Option, Redacted } from "effect"
import http from "node:http"
import { availableParallelism, loadavg } from "node:os"
import pg from "pg"
import { LoggingLive } from "../../layers/Logging.ts"
import { CursorKey } from "../../services/catalog/CursorKey.ts"
import { SealedCursor } from "../../services/catalog/SealedCursor.ts"
import { pageStatement } from "../../services/connectors/sii/RcvCache.ts"
import { sealConsultarCursor } from "../../services/sync/ConsultarCursor.ts"
import { makePrng } from "../../services/upstream/Prng.ts"
import { auditShapedRow, CREATE_AUDIT_SHAPED, INSERT_AUDIT_SHAPED } from "./AuditShaped.ts"
import { BENCH_CURSOR_KEY, createKey, serveBrein } from "./Brein.ts"
import { freePort } from "./Children.ts"
import { reportProfile } from "./Comparison.ts"
import { cpuTimeMs } from "./CpuTime.ts"
import { MANY, NodeFlags, settingsFirst, wholeNumber } from "./Settings.ts"
import { sharedDatabase } from "./SharedDatabase.ts"

const SCOPES = 200
/** The goal: a call's p50 at most this many times the raw query of the same page. */
const GOAL_RATIO = 4
// --quick: a short run for iterating (100 k documents, 600 pages); the goal is judged on the full run.
const quick = process.argv.includes("--quick")
const settings = Config.all({
  documents: wholeNumber("BENCH_DOCUMENTS", { min: 1, max: MANY, unit: "documents" }, quick ? 100_000 : 1_000_000),
  requests: wholeNumber("BENCH_REQUESTS", { min: 1, max: MANY, unit: "requests" }, quick ? 600 : 2_000),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  nodeFlags: NodeFlags,
  /** BENCH_PROFILE=true: brein runs from its sources under --cpu-prof and its hottest frames are printed. */
  profile: Config.boolean("BENCH_PROFILE").pipe(Config.withDefault(false)),
  /** Where to keep the raw .cpuprofile files (for DevTools); by default they go with the temp dir. */
  profileDir: Config.option(Config.string("BENCH_PROFILE_DIR"))
})

// 200 scopes (100 periods × ventas/compras) of equal size; a sync writes a scope's rows together, so
// row g belongs to scope floor(g / per-scope) and a scope's rows sit next to each other, as they do.
const seed = (documents: number) => {
  const per = Math.ceil(documents / SCOPES)
  return `
  INSERT INTO connections (id, workspace_id, connector, state) SELECT 'conn_benchconsultar', id, 'sii', 'sincronizada' FROM workspaces WHERE name = 'bench';
  INSERT INTO rcv_documents (connection_id, natural_key, periodo, perspectiva, tipo_dte, folio, rut_emisor, rut_receptor, razon_social,
    fecha_emision, monto_exento, monto_neto, monto_iva, monto_total, estado, content_hash, synced_at)
  SELECT 'conn_benchconsultar', 'k' || g, to_char(date '2018-01-01' + ((g / ${per}) / 2) * interval '1 month', 'YYYY-MM'),
         CASE WHEN (g / ${per}) % 2 = 0 THEN 'ventas' ELSE 'compras' END, 33, g, '77123456-9', '76543210-3', 'Constructora Los Robles Ltda',
         date '2018-01-01' + ((g / ${per}) / 2) * interval '1 month', 0, 5000 + (g::bigint * 7919) % 5000000,
         round((5000 + (g::bigint * 7919) % 5000000) * 0.19), round((5000 + (g::bigint * 7919) % 5000000) * 1.19), 'registro', md5(g::text), now()
  FROM generate_series(1, ${documents}) g;
  INSERT INTO sync_coverage (connection_id, scope_key, scope, synced_at, completo, job_id)
  SELECT DISTINCT 'conn_benchconsultar', 'periodo=' || periodo || '&perspectiva=' || perspectiva,
         jsonb_build_object('periodo', periodo, 'perspectiva', perspectiva), now(), true, 'job_bench'
  FROM rcv_documents WHERE connection_id = 'conn_benchconsultar';
  ANALYZE rcv_documents;
  CHECKPOINT;`
}

const PAGE_SQL =
  `SELECT id, natural_key, tipo_dte, folio, rut_emisor, rut_receptor, razon_social, to_char(fecha_emision, 'DD/MM/YYYY') AS fecha_emision,
  monto_exento, monto_neto, monto_iva, monto_total, estado, periodo, perspectiva, tipo_doc_ref, folio_ref, version
  FROM rcv_documents WHERE connection_id = $1 AND periodo = $2 AND perspectiva = $3 AND id > $4 ORDER BY id LIMIT 101`

// The floor: what a call of brein does in the database, in the same order, with raw pg and none of brein's
// code: take one read of the hour (brein's own function), the page beside its scope's status (one statement),
// then one audit-shaped row, committed. The goal is set against the page alone; this says how much of the
// ratio is the statements a call has to make.
const TAKE_SQL = "SELECT allowed, used, oldest FROM brein_take_read($1, $2, interval '1 hour', $3, $4, true)"

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
const summary = (samples: Array<number>) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length }
}

const program = Effect.gen(function* () {
  const { documents, requests, databaseUrl, nodeFlags, profile, profileDir: profileDirSetting } = yield* settings
  const database = yield* sharedDatabase(databaseUrl)
  yield* Console.log(`bench:consultar  sii.rcv.consultar pages of 100 from ${documents} cached documents on ${database.label}`)
  const dataDir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-bench-consultar-" })
  const key = yield* createKey({ databaseUrl: database.url, dataDir })
  const client = new pg.Client({ connectionString: database.url })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  yield* Effect.promise(() => client.query(CREATE_AUDIT_SHAPED))
  // the workspace `brein keys create` made: the floor takes its reads of the hour as brein's calls do
  const workspaceId = yield* Effect.promise(() => client.query<{ id: string }>("SELECT id FROM workspaces WHERE name = 'bench'")).pipe(
    Effect.flatMap((result) => Effect.fromNullable(result.rows[0]?.id)),
    Effect.orDieWith(() => new Error("the bench workspace was not created"))
  )
  yield* Effect.promise(() => client.query("DELETE FROM connections WHERE id = 'conn_benchconsultar'"))
  const [seedMs] = yield* Effect.timed(Effect.promise(() => client.query(seed(documents))))
  yield* Effect.addFinalizer(() => Effect.promise(() => client.query("DELETE FROM connections WHERE id = 'conn_benchconsultar'")))
  yield* Console.log(`  seeded in ${(Duration.toMillis(seedMs) / 1000).toFixed(1)} s`)

  // The same pages for both: a random scope and a random place in it.
  const prng = makePrng("bench:consultar")
  const pages = Array.from({ length: requests }, () => {
    const scope = prng.int(0, SCOPES - 1)
    const month = Math.floor(scope / 2)
    const periodo = `${2018 + Math.floor(month / 12)}-${String((month % 12) + 1).padStart(2, "0")}`
    const perspectiva = scope % 2 === 0 ? "ventas" as const : "compras" as const
    const per = Math.ceil(documents / SCOPES)
    const after = Math.max(0, scope * per + prng.int(0, per - 120))
    return { periodo, perspectiva, after }
  })

  const serverMs: Array<number> = []
  const port = yield* freePort
  const profileDir = Option.getOrElse(profileDirSetting, () => `${dataDir}/profile`)
  const server = yield* serveBrein({
    databaseUrl: database.url,
    dataDir,
    port,
    nodeFlags: [...nodeFlags, ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [])],
    fromSources: profile
  })
  const url = `http://127.0.0.1:${port}/api/v1/tools/sii.rcv.consultar/execute`
  // node:http with a kept-alive socket, as the raw side keeps its connection: fetch's own cost per
  // request (a Request, a Response, a body stream) is the client's, not brein's.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
  const post = (body: string) =>
    new Promise<{ readonly status: number; readonly text: string }>((resolve, reject) => {
      const request = http.request(url, {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          authorization: `Bearer ${key}`,
          "x-connect-connection": "conn_benchconsultar"
        }
      }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
        response.on("error", reject)
      })
      request.on("error", reject)
      request.end(body)
    })
  // a page starts where a cursor of its query, sealed as brein seals it, says
  const cursorOf = (page: (typeof pages)[number]) =>
    sealConsultarCursor(
      {
        toolId: "sii.rcv.consultar",
        workspace: workspaceId,
        connectionId: "conn_benchconsultar",
        filter: { periodo: page.periodo, perspectiva: page.perspectiva }
      },
      page.after > 0 ? { at: null, id: String(page.after) } : null
    )
  const call = (page: (typeof pages)[number], cursor: string | null) =>
    Effect.promise(() =>
      post(JSON.stringify({
        input: { periodo: page.periodo, perspectiva: page.perspectiva, ...(cursor === null ? {} : { cursor }) }
      })).then(({ status, text }) => {
        if (status !== 200 || !text.includes("\"documentos\"")) {
          throw new Error(`consultar answered ${status}: ${text.slice(0, 300)}`)
        }
        serverMs.push(Number(/"latency_ms":([0-9.]+)/.exec(text)?.[1] ?? "0"))
      })
    )
  const query = (page: (typeof pages)[number]) =>
    Effect.promise(() => client.query(PAGE_SQL, ["conn_benchconsultar", page.periodo, page.perspectiva, page.after]))
  // The statement RcvCache.page makes of each page, compiled once (its text and parameters, as pg gets them).
  const house = yield* PgClient.make({ url: Redacted.make(database.url), maxConnections: 2 }).pipe(Effect.provide(Reactivity.layer))
  const statements = new Map(pages.map((page) => [
    page,
    pageStatement(house.withoutTransforms(), { connectionId: "conn_benchconsultar", ...page, limit: 100 }).compile()
  ]))
  const pageBesideStatus = (page: (typeof pages)[number]) => {
    const statement = statements.get(page)
    if (statement === undefined) throw new Error("a page without its statement")
    return statement
  }
  let floorCalls = 0
  const floor = (page: (typeof pages)[number]) =>
    Effect.promise(async () => {
      floorCalls += 1
      const requestId = `req_floor_${floorCalls}`
      await client.query(TAKE_SQL, [workspaceId, new Date(), 100_000_000, requestId])
      const [text, parameters] = pageBesideStatus(page)
      const { rows } = await client.query(text, [...parameters])
      const row = {
        requestId,
        surface: "http",
        toolId: "sii.rcv.consultar",
        input: JSON.stringify(page),
        output: JSON.stringify(rows)
      }
      await client.query(INSERT_AUDIT_SHAPED, auditShapedRow(row, new Date(), 0))
    })
  // The same statements in the same order through the house stack (Effect and @effect/sql-pg, as brein makes
  // them), still without any of brein's code: what the stack itself adds to the floor.
  let houseCalls = 0
  const houseFloor = (page: (typeof pages)[number]) =>
    Effect.gen(function* () {
      houseCalls += 1
      const requestId = `req_house_${houseCalls}`
      yield* house.unsafe(TAKE_SQL, [workspaceId, new Date(), 100_000_000, requestId])
      const [text, parameters] = pageBesideStatus(page)
      const rows = yield* house.unsafe(text, parameters)
      const row = { requestId, surface: "http", toolId: "sii.rcv.consultar", input: JSON.stringify(page), output: JSON.stringify(rows) }
      yield* house.unsafe(INSERT_AUDIT_SHAPED, auditShapedRow(row, new Date(), 0))
    }).pipe(Effect.orDie)
  // wall time in ms, and this process's CPU time in µs (the raw and house sides run here)
  const timed = (run: Effect.Effect<unknown>, cpu?: { us: number }) =>
    Effect.suspend(() => {
      const before = process.cpuUsage()
      return Effect.map(Effect.timed(run), ([d]) => {
        const used = process.cpuUsage(before)
        if (cpu !== undefined) cpu.us += used.user + used.system
        return Duration.toMillis(d)
      })
    })

  // Both are measured on a warm cache: one pass over every page first, then brein's warm-up. Then
  // each page is asked of both in turn, so a burst of load on a shared machine falls on both alike.
  yield* Effect.forEach(pages, query, { discard: true })
  yield* Effect.forEach(pages.slice(0, 200), (page) => Effect.flatMap(cursorOf(page), (cursor) => call(page, cursor)), { discard: true })
  const breinMs: Array<number> = []
  const rawMs: Array<number> = []
  const floorMs: Array<number> = []
  const houseMs: Array<number> = []
  const cpu = { raw: { us: 0 }, floor: { us: 0 }, house: { us: 0 } }
  yield* Effect.forEach(pages.slice(0, 200), floor, { discard: true })
  yield* Effect.forEach(pages.slice(0, 200), houseFloor, { discard: true })
  const cpuBefore = yield* cpuTimeMs(server.process.pid)
  const measuredFrom = yield* Clock.currentTimeMillis
  yield* Effect.forEach(pages, (page) =>
    Effect.gen(function* () {
      const cursor = yield* cursorOf(page)
      breinMs.push(yield* timed(call(page, cursor)))
      rawMs.push(yield* timed(query(page), cpu.raw))
      floorMs.push(yield* timed(floor(page), cpu.floor))
      houseMs.push(yield* timed(houseFloor(page), cpu.house))
    }), { discard: true })
  const cpuAfter = yield* cpuTimeMs(server.process.pid)
  const measuredTo = yield* Clock.currentTimeMillis
  const cpuPerCall = Option.map(Option.all([cpuBefore, cpuAfter]), ([before, after]) => ((after - before) * 1000) / pages.length)
  const brein = summary(breinMs)
  const inside = summary(serverMs.slice(200))
  const raw = summary(rawMs)
  const floorSummary = summary(floorMs)
  const houseSummary = summary(houseMs)
  const cpuOf = (side: { us: number }) => `${(side.us / pages.length).toFixed(0)} µs`
  const ratio = brein.p50 / raw.p50
  const row = (label: string, s: ReturnType<typeof summary>) =>
    `  ${label.padEnd(44)} p50 ${s.p50.toFixed(2).padStart(6)} ms   p99 ${s.p99.toFixed(2).padStart(6)} ms   mean ${
      s.mean.toFixed(2).padStart(6)
    } ms`
  yield* Console.log(
    [
      "",
      row("brein HTTP sii.rcv.consultar (+ auth, audit)", brein),
      row("  of which inside brein's executor", inside),
      ...Option.toArray(Option.map(cpuPerCall, (us) => `  brein's server CPU per call: ${us.toFixed(0)} µs`)),
      row("raw pg query of the same page", raw),
      row("raw pg: a call's statements (floor)", floorSummary),
      row("  the same through Effect + @effect/sql-pg", houseSummary),
      `  ratio brein/raw: p50 ${ratio.toFixed(1)}× (goal ≤ ${GOAL_RATIO}×: ${ratio <= GOAL_RATIO ? "met" : "MISSED"}), p99 ${
        (brein.p99 / raw.p99).toFixed(1)
      }×`,
      `  the floor (take a read, the page beside its status in one statement, one audit-shaped row) is ${
        (floorSummary.p50 / raw.p50).toFixed(1)
      }× the page alone;` +
      ` brein/floor: p50 ${(brein.p50 / floorSummary.p50).toFixed(1)}×`,
      `  the floor through the house stack (Effect + @effect/sql-pg, none of brein's code) is ${
        (houseSummary.p50 / raw.p50).toFixed(1)
      }× the page alone`,
      `  CPU per call in the bench's process: the page ${cpuOf(cpu.raw)}, the floor ${
        cpuOf(cpu.floor)
      }, the floor through the house stack ${cpuOf(cpu.house)}`,
      `  load average during the run: ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${availableParallelism()} CPUs`,
      ""
    ].join("\n")
  )
  if (profile) {
    // brein is idle while the other sides run; the shares below are of the window's samples
    const sinceMeasured = (yield* Clock.currentTimeMillis) - measuredTo
    yield* reportProfile(server, profileDir, { endsBeforeEnd: sinceMeasured * 1000, length: (measuredTo - measuredFrom) * 1000 })
  }
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(Layer.mergeAll(
    NodeContext.layer,
    FetchHttpClient.layer,
    LoggingLive,
    SealedCursor.Default.pipe(Layer.provide(Layer.succeed(CursorKey, Redacted.make(new Uint8Array(BENCH_CURSOR_KEY)))))
  )),
  settingsFirst(settings),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
