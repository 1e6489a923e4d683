import { FetchHttpClient, FileSystem } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Config, Console, Duration, Effect, Layer } from "effect"
import http from "node:http"
import { availableParallelism, loadavg } from "node:os"
import pg from "pg"
import { LoggingLive } from "../../layers/Logging.ts"
import type { Industry } from "../../schema/catalog/Directory.ts"
import { INDUSTRIES } from "../../schema/catalog/Directory.ts"
import { fold } from "../../schema/geo/Guard.ts"
import { companiesCount, companiesPage, type CompanyFilter } from "../../services/catalog/empresas/Queries.ts"
import { makePrng, type NonEmpty } from "../../services/upstream/Prng.ts"
import { createKey, seedDirectory, serveBrein } from "./Brein.ts"
import { freePort } from "./Children.ts"
import { latencies, latencyRow, toolPoster } from "./Latency.ts"
import { CompanySizes, MANY, settingsFirst, wholeNumber } from "./Settings.ts"
import { sharedDatabase } from "./SharedDatabase.ts"

/** The goal: a search's p50 at most this many times the raw SQL of the same page. */
const GOAL_RATIO = 3
// --quick: 20 k then 100 k companies and 300 searches per size, for iterating; the goal is judged on the full run.
const quick = process.argv.includes("--quick")
const settings = Config.all({
  sizes: CompanySizes(quick ? [20_000, 100_000] : [100_000, 1_000_000]),
  requests: wholeNumber("BENCH_REQUESTS", { min: 1, max: MANY, unit: "requests" }, quick ? 300 : 1_000),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL"))
})

const WORDS: NonEmpty<string> = [
  "constructora",
  "andina",
  "logística",
  "robles",
  "pacífico",
  "soluciones",
  "minera",
  "comercial",
  "compañía",
  "sur"
]
const INDUSTRY_KEYS = Object.keys(INDUSTRIES) as unknown as NonEmpty<Industry>

/** A search as the tool takes it, and the filter its SQL is built from. */
const searches = (count: number) => {
  const prng = makePrng("bench:companies")
  return Array.from({ length: count }, () => {
    const country = prng.pick(["CL", "MX"] as const)
    const word = prng.pick(WORDS)
    const industry = prng.chance(0.5) ? prng.pick(INDUSTRY_KEYS) : undefined
    const input = { q: word, country, ...(industry === undefined ? {} : { industry }), limit: 25 }
    const filter: CompanyFilter = { words: [fold(word)], country, ...(industry === undefined ? {} : { industry }) }
    return { input, filter }
  })
}

const program = Effect.gen(function* () {
  const { databaseUrl, requests, sizes } = yield* settings
  const database = yield* sharedDatabase(databaseUrl)
  yield* Console.log(`bench:companies  companies_search (name query + filters, pages of 25) on ${database.label}`)
  const dataDir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-bench-companies-" })
  const key = yield* createKey({ databaseUrl: database.url, dataDir })
  // Two connections, as the tool reads its page and its count side by side.
  const clients = [new pg.Client({ connectionString: database.url }), new pg.Client({ connectionString: database.url })] as const
  for (const client of clients) {
    yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  }
  const port = yield* freePort
  yield* serveBrein({ databaseUrl: database.url, dataDir, port, nodeFlags: ["--max-semi-space-size=64"] })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
  const poster = toolPoster(port, key, agent)
  const post = (body: string) => poster("companies_search", body, (text) => text.includes("\"companies\""))
  const timed = (run: () => Promise<unknown>) => Effect.map(Effect.timed(Effect.promise(run)), ([d]) => Duration.toMillis(d))

  const all = searches(requests)
  for (const companies of sizes) {
    yield* Console.log(
      `\n  ${companies.toLocaleString("en-US")} companies: ${yield* seedDirectory({
        databaseUrl: database.url,
        dataDir,
        companies,
        seed: "bench"
      })}`
    )
    const page = (s: (typeof all)[number]) => {
      const q = companiesPage(s.filter, null, 25)
      return clients[0].query(q.text, [...q.params])
    }
    const pageAndCount = (s: (typeof all)[number]) => {
      const c = companiesCount(s.filter)
      return Promise.all([page(s), clients[1].query(c.text, [...c.params])])
    }
    const call = (s: (typeof all)[number]) => post(JSON.stringify({ input: s.input }))
    // Warm both sides over every search, then ask each search of all three in turn (a burst of load falls on all alike).
    for (const s of all) yield* Effect.promise(() => pageAndCount(s))
    for (const s of all.slice(0, 100)) yield* Effect.promise(() => call(s))
    const breinMs: Array<number> = []
    const rawMs: Array<number> = []
    const pageMs: Array<number> = []
    for (const s of all) {
      breinMs.push(yield* timed(() => call(s)))
      rawMs.push(yield* timed(() => pageAndCount(s)))
      pageMs.push(yield* timed(() => page(s)))
    }
    const brein = latencies(breinMs)
    const raw = latencies(rawMs)
    const ratio = brein.p50 / raw.p50
    yield* Console.log([
      latencyRow("  brein HTTP companies_search (+ auth, audit)", brein, 50),
      latencyRow("  raw SQL: the same page and its capped count", raw, 50),
      latencyRow("  raw SQL: the page alone", latencies(pageMs), 50),
      `  ratio brein/raw: p50 ${ratio.toFixed(1)}× (goal ≤ ${GOAL_RATIO}×: ${ratio <= GOAL_RATIO ? "met" : "MISSED"}), p99 ${
        (brein.p99 / raw.p99).toFixed(1)
      }×`,
      `  load average: ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${availableParallelism()} CPUs`
    ].join("\n"))
  }
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, FetchHttpClient.layer, LoggingLive)),
  settingsFirst(settings),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
