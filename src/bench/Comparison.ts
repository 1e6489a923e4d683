import { FileSystem } from "@effect/platform"
import { Array as Arr, Clock, Console, Duration, Effect, Option, Order } from "effect"
import * as Os from "node:os"
import { createKey, serveBrein, verifyAudit } from "./Brein.ts"
import { awaitHttp, type Child, freePort, spawn } from "./Children.ts"
import { cpuTimeMs } from "./CpuTime.ts"
import { load, type Target } from "./Load.ts"
import { type Accepts, probe } from "./Probe.ts"
import { type ProfileSummary, summarize, type Window } from "./Profile.ts"
import { type Goals, type Measured, printAudit, printComparison, printProfile, printRounds, verdicts } from "./Report.ts"
import { Settings } from "./Settings.ts"
import { sharedDatabase } from "./SharedDatabase.ts"

export interface Comparison {
  readonly title: string
  readonly breinLabel: string
  readonly baselineLabel: string
  /** a node script under src/bench/ run as `script <port> <database url> ...baselineArgs` */
  readonly baselineScript: string
  readonly baselineArgs?: ReadonlyArray<string>
  readonly baselineReadyPath: string
  readonly brein: (origin: string, key: string) => Target
  readonly baseline: (origin: string) => Target
  readonly accepts: Accepts
  readonly goals: Goals
}

const measure = Effect.fn("Bench.measure")(function* (target: Target, settings: Settings, server: Child) {
  yield* load(target, settings.connections, settings.warmup)
  const before = yield* cpuTimeMs(server.process.pid)
  const figures = yield* load(target, settings.connections, settings.duration)
  const after = yield* cpuTimeMs(server.process.pid)
  const cpuUsPerRequest = Option.map(Option.all([before, after]), ([b, a]) => ((a - b) * 1000) / Math.max(figures.ok + figures.failed, 1))
  return { ...figures, cpuUsPerRequest } satisfies Measured
})

/** The round whose throughput ratio is the median: its figures stand for the run, the others show the noise. */
const medianRound = (rounds: ReadonlyArray<{ readonly baseline: Measured; readonly brein: Measured }>, goals: Goals) => {
  const sorted = Arr.sort(
    rounds,
    Order.mapInput(
      Order.number,
      (round: { readonly baseline: Measured; readonly brein: Measured }) => verdicts(round.brein, round.baseline, goals).throughput
    )
  )
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? rounds[0]!
}

const loadAverage = Effect.sync(() => Os.loadavg()[0] ?? 0)

/** Stops brein so node writes its profiles, then summarizes the window of its measured load. */
export const reportProfile = Effect.fn("Bench.reportProfile")(function* (brein: Child, directory: string, window: Window) {
  const fs = yield* FileSystem.FileSystem
  yield* brein.process.kill("SIGTERM")
  const files = (yield* fs.readDirectory(directory)).filter((file) => file.endsWith(".cpuprofile"))
  const summaries = yield* Effect.forEach(files, (file) => summarize(`${directory}/${file}`, window, 25))
  // --cpu-prof also profiles tsx's loader thread; the server is the busiest profile
  const busiest = Arr.sort(summaries, Order.reverse(Order.mapInput(Order.number, (s: ProfileSummary) => s.busy)))
  yield* Effect.forEach(Arr.take(busiest, 1), printProfile)
})

/**
 * brein and a bare baseline, each in its own process on the same PostgreSQL, loaded one after the
 * other from this process; then brein's audit chain is verified.
 */
export const compare = Effect.fn("Bench.compare")(function* (spec: Comparison) {
  const settings = yield* Settings
  const fs = yield* FileSystem.FileSystem
  const database = yield* sharedDatabase(settings.databaseUrl)
  const databaseUrl = database.url
  const work = yield* fs.makeTempDirectoryScoped({ prefix: "brein-bench-" })
  const breinOptions = { databaseUrl, dataDir: `${work}/data` }
  const profileDir = Option.getOrElse(settings.profileDir, () => `${work}/profile`)

  const key = yield* createKey(breinOptions)
  const breinPort = yield* freePort
  const baselinePort = yield* freePort
  const brein = yield* serveBrein({
    ...breinOptions,
    port: breinPort,
    nodeFlags: [...settings.nodeFlags, ...(settings.profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [])],
    fromSources: settings.profile
  })
  const baseline = yield* spawn({
    name: "baseline",
    args: [spec.baselineScript, String(baselinePort), databaseUrl, ...(spec.baselineArgs ?? [])],
    nodeFlags: settings.nodeFlags
  })
  yield* awaitHttp(baseline, `http://127.0.0.1:${baselinePort}${spec.baselineReadyPath}`)

  const breinTarget = spec.brein(`http://127.0.0.1:${breinPort}`, key)
  const baselineTarget = spec.baseline(`http://127.0.0.1:${baselinePort}`)
  yield* probe("baseline", baselineTarget, spec.accepts)
  yield* probe("brein", breinTarget, spec.accepts)

  yield* Console.log(
    `${spec.title}: ${Duration.format(settings.warmup)} warm-up + ${
      Duration.format(settings.duration)
    } each at ${settings.connections} connections`
  )
  const loadBefore = yield* loadAverage
  const rounds = yield* Effect.forEach(
    Arr.range(1, Math.max(settings.rounds, 1)),
    () => Effect.all({ baseline: measure(baselineTarget, settings, baseline), brein: measure(breinTarget, settings, brein) })
  )
  const { baseline: baselineFigures, brein: breinFigures } = medianRound(rounds, spec.goals)
  const loadEnded = yield* Clock.currentTimeMillis
  yield* probe("brein after the load", breinTarget, spec.accepts)

  const setup = [
    `${settings.connections} connections`,
    `${Duration.format(settings.duration)}`,
    database.label,
    ...(settings.nodeFlags.length > 0 ? [`node ${settings.nodeFlags.join(" ")}`] : []),
    settings.profile ? "brein from its sources under tsx and --cpu-prof" : "brein built (dist/bin/brein.js, as npm start runs it)",
    `load average ${loadBefore.toFixed(1)} before, ${(yield* loadAverage).toFixed(1)} after on ${Os.availableParallelism()} cores`
  ].join(", ")
  yield* printComparison(
    spec.title,
    { brein: breinFigures, baseline: baselineFigures, breinLabel: spec.breinLabel, baselineLabel: spec.baselineLabel },
    spec.goals,
    setup
  )
  yield* printRounds(rounds, spec.goals)

  if (settings.profile) {
    const sinceLoad = (yield* Clock.currentTimeMillis) - loadEnded
    yield* reportProfile(brein, profileDir, { endsBeforeEnd: sinceLoad * 1000, length: Duration.toMillis(settings.duration) * 1000 })
  }

  const audit = yield* verifyAudit(breinOptions)
  yield* printAudit(audit)
  // A missed goal is a finding; a broken chain or failed requests make the run itself wrong.
  const failed = rounds.reduce((sum, round) => sum + round.brein.failed + round.baseline.failed, 0)
  yield* Effect.sync(() => void (process.exitCode = audit.intact && failed === 0 ? 0 : 1))
  return { ...verdicts(breinFigures, baselineFigures, spec.goals), audit, failed }
})
