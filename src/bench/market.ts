import { FetchHttpClient, FileSystem } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Config, Console, Duration, Effect, Layer } from "effect"
import http from "node:http"
import { availableParallelism, loadavg } from "node:os"
import pg from "pg"
import { LoggingLive } from "../../layers/Logging.ts"
import type { GroupBy } from "../../schema/catalog/MercadoAggregates.ts"
import { MEXICO_STATES, type MexicoStateCode } from "../../schema/geo/MexicoStates.ts"
import { type AwardScope, groupedAwards, sourceFor } from "../../services/catalog/mercado/AggregatesQueries.ts"
import { countQuery, pageQuery } from "../../services/catalog/mercado/Query.ts"
import { awards } from "../../services/catalog/mercado/Searches.ts"
import { makePrng, type NonEmpty } from "../../services/upstream/Prng.ts"
import { createKey, seedMarket, serveBrein } from "./Brein.ts"
import { freePort } from "./Children.ts"
import { latencies, latencyRow, toolPoster } from "./Latency.ts"
import { AwardSizes, MANY, settingsFirst, wholeNumber } from "./Settings.ts"
import { sharedDatabase } from "./SharedDatabase.ts"

/** The goal: a Mercado tool's p50 over HTTP at most this many times the raw SQL of the same question. */
const GOAL_RATIO = 3
// --quick: 20 k then 200 k awards and 200 questions per tool, for iterating; the goal is judged on the full run.
const quick = process.argv.includes("--quick")
const settings = Config.all({
  sizes: AwardSizes(quick ? [20_000, 200_000] : [200_000, 2_000_000]),
  requests: wholeNumber("BENCH_REQUESTS", { min: 1, max: MANY, unit: "requests" }, quick ? 200 : 600),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL"))
})

const STATES = MEXICO_STATES.map((s) => s.code) as unknown as NonEmpty<MexicoStateCode>
const GROUPS: NonEmpty<GroupBy> = ["state", "year", "contract_type", "procedure_type", "supplier_size"]
const PROCEDURES = ["licitacion_publica", "invitacion_tres", "adjudicacion_directa"] as const
const YEARS: NonEmpty<number> = [2019, 2020, 2021, 2022, 2023, 2024, 2025, 2026]

interface Question {
  readonly tool: string
  readonly input: object
  /** The SQL the tool runs for it, on as many connections as the tool uses at once. */
  readonly raw: ReadonlyArray<{ readonly text: string; readonly params: ReadonlyArray<unknown> }>
}

/** market_aggregate_awards by a rollup dimension, half the time over a few states and years. */
const aggregates = (count: number): ReadonlyArray<Question> => {
  const prng = makePrng("bench:market:aggregate")
  return Array.from({ length: count }, () => {
    const groupBy = prng.pick(GROUPS)
    const narrowed = prng.chance(0.5)
    const from = prng.pick(YEARS)
    const filter: AwardScope = narrowed
      ? { states: [prng.pick(STATES), prng.pick(STATES)], year_from: from, year_to: Math.min(2026, from + 2) }
      : {}
    const input = { group_by: groupBy, ...filter, top: 10 }
    return { tool: "market_aggregate_awards", input, raw: [groupedAwards(sourceFor(groupBy, filter), groupBy, filter, 10)] }
  })
}

/** market_search_awards: newest first in a state, a year or a procedure type, pages of 25 with their count. */
// The day a statement judges date-dependent columns on (the awards search has none), as brein takes it from the clock.
const TODAY = new Date().toISOString().slice(0, 10)

const searches = (count: number): ReadonlyArray<Question> => {
  const prng = makePrng("bench:market:search")
  return Array.from({ length: count }, () => {
    const state = prng.pick(STATES)
    const year = prng.chance(0.5) ? prng.pick(YEARS) : undefined
    const procedure = prng.chance(0.3) ? prng.pick(PROCEDURES) : undefined
    const input = {
      state,
      limit: 25,
      ...(year === undefined ? {} : { year }),
      ...(procedure === undefined ? {} : { procedure_type: procedure })
    }
    const filter = { state, ...(year === undefined ? {} : { year }), ...(procedure === undefined ? {} : { procedureType: procedure }) }
    return {
      tool: "market_search_awards",
      input,
      raw: [pageQuery(awards, filter, TODAY, undefined, 25), countQuery(awards, filter, TODAY)]
    }
  })
}

const program = Effect.gen(function* () {
  const { databaseUrl, requests, sizes } = yield* settings
  const database = yield* sharedDatabase(databaseUrl)
  yield* Console.log(`bench:market  market_aggregate_awards and market_search_awards over HTTP beside their raw SQL, on ${database.label}`)
  const dataDir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-bench-market-" })
  const key = yield* createKey({ databaseUrl: database.url, dataDir })
  // Two connections, as a search reads its page and its count side by side.
  const clients = [new pg.Client({ connectionString: database.url }), new pg.Client({ connectionString: database.url })] as const
  for (const client of clients) {
    yield* Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end()))
  }
  const port = yield* freePort
  yield* serveBrein({ databaseUrl: database.url, dataDir, port, nodeFlags: ["--max-semi-space-size=64"] })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
  const post = toolPoster(port, key, agent)
  const timed = (run: () => Promise<unknown>) => Effect.map(Effect.timed(Effect.promise(run)), ([d]) => Duration.toMillis(d))
  const raw = (q: Question) => Promise.all(q.raw.map((sql, i) => clients[i % clients.length]!.query(sql.text, [...sql.params])))
  const call = (q: Question) => post(q.tool, JSON.stringify({ input: q.input }))

  const tools = [aggregates(requests), searches(requests)] as const
  for (const size of sizes) {
    yield* Console.log(
      `\n  ${size.toLocaleString("en-US")} awards: ${yield* seedMarket({
        databaseUrl: database.url,
        dataDir,
        awards: size,
        seed: "bench"
      })}`
    )
    for (const questions of tools) {
      // Warm both sides, then ask each question of both in turn (a burst of load falls on both alike).
      for (const q of questions) yield* Effect.promise(() => raw(q))
      for (const q of questions.slice(0, 50)) yield* Effect.promise(() => call(q))
      const breinMs: Array<number> = []
      const rawMs: Array<number> = []
      for (const q of questions) {
        breinMs.push(yield* timed(() => call(q)))
        rawMs.push(yield* timed(() => raw(q)))
      }
      const brein = latencies(breinMs)
      const base = latencies(rawMs)
      const ratio = brein.p50 / base.p50
      yield* Console.log([
        `  ${questions[0]!.tool}`,
        latencyRow("    brein HTTP (+ auth, read ceiling, audit)", brein),
        latencyRow("    raw SQL of the same question", base),
        `    ratio brein/raw: p50 ${ratio.toFixed(1)}× (goal ≤ ${GOAL_RATIO}×: ${ratio <= GOAL_RATIO ? "met" : "MISSED"}), p99 ${
          (brein.p99 / base.p99).toFixed(1)
        }×`
      ].join("\n"))
    }
    yield* Console.log(`  load average: ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${availableParallelism()} CPUs`)
  }
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, FetchHttpClient.layer, LoggingLive)),
  settingsFirst(settings),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
