import { FileSystem, HttpClient, HttpClientRequest } from "@effect/platform"
import { FetchHttpClient } from "@effect/platform"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Config, Console, Data, Duration, Effect, Layer, Option, Schedule } from "effect"
import * as Os from "node:os"
import { LoggingLive } from "../../layers/Logging.ts"
import { awaitHttp, type Child, ChildFailed, freePort, type NodeScript, runToEnd, spawn } from "./Children.ts"
import { cpuTimeMs, exitedChildrenCpuTimeMs } from "./CpuTime.ts"
import { NodeFlags, settingsFirst, wholeNumber } from "./Settings.ts"

class NotHealthy extends Data.TaggedError("NotHealthy")<{ readonly status: number }> {}

const settings = Config.all({
  runs: wholeNumber("BENCH_RUNS", { min: 1, max: 1_000, unit: "runs" }, 5),
  nodeFlags: NodeFlags
})

const GOALS = { serve: 2_000, keys: 1_000 }

interface Variant {
  readonly label: string
  /** how `serve` and a command are started: the script and whether it is TypeScript under tsx */
  readonly serve: ReadonlyArray<string>
  readonly command: ReadonlyArray<string>
  readonly tsx: boolean
}

const compiled: Variant = { label: "compiled", serve: ["dist/bin/brein.js", "serve"], command: ["bin/brein.js"], tsx: false }
const typescript: Variant = { label: "tsx", serve: ["src/main.ts", "serve"], command: ["src/main.ts"], tsx: true }

// An empty DATABASE_URL means "unset": every child uses the embedded PostgreSQL of the data folder.
const envFor = (dataDir: string, extra: Record<string, string> = {}) => ({
  DATABASE_URL: "",
  BREIN_DATA_DIR: dataDir,
  BREIN_PG_PORT: "0",
  LOG_LEVEL: "WARN",
  ...extra
})

/** Polls every 10 ms until /health answers 200 (awaitHttp's 100 ms spacing is too coarse to time a start). */
const healthy = (child: Child, port: number) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const url = `http://127.0.0.1:${port}/health`
    const ok = client.execute(HttpClientRequest.get(url)).pipe(
      Effect.flatMap((response) => (response.status === 200 ? Effect.void : new NotHealthy({ status: response.status }))),
      Effect.scoped,
      Effect.retry({ schedule: Schedule.spaced(Duration.millis(10)), times: 6_000 })
    )
    return yield* Effect.raceFirst(ok, awaitHttp(child, url).pipe(Effect.zipRight(ok)))
  })

/** The embedded server stops after its owner: the next start must not find it still shutting down. */
const clusterStopped = (dataDir: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists(`${dataDir}/pg/postmaster.pid`)).pipe(
    Effect.repeat({ until: (running) => !running, schedule: Schedule.spaced(Duration.millis(50)) }),
    Effect.timeout(Duration.seconds(30))
  )

/** Milliseconds from spawning `serve` to its first 200 on /health; the process and its cluster are stopped after. */
const timeToHealth = Effect.fn("Bench.timeToHealth")(function* (variant: Variant, dataDir: string, nodeFlags: ReadonlyArray<string>) {
  const port = yield* freePort
  const script: NodeScript = {
    name: `${variant.label} serve`,
    args: variant.serve,
    env: envFor(dataDir, { PORT: String(port) }),
    nodeFlags,
    tsx: variant.tsx
  }
  // timed inside the scope: the stop that closing it brings is not part of the start
  const [took, cpu] = yield* Effect.scoped(
    Effect.timed(Effect.flatMap(spawn(script), (child) => Effect.zipRight(healthy(child, port), cpuTimeMs(child.process.pid))))
  )
  yield* clusterStopped(dataDir)
  return { ms: Duration.toMillis(took), cpu }
})

/** Milliseconds `brein keys create` takes, from spawn to exit; fails unless it printed a key. */
const timeKeysCreate = Effect.fn("Bench.timeKeysCreate")(function* (variant: Variant, dataDir: string) {
  const args = [...variant.command, "keys", "create", "--workspace", "bench"]
  const before = yield* exitedChildrenCpuTimeMs
  const [took, result] = yield* Effect.timed(
    runToEnd({ name: `${variant.label} keys create`, args, env: envFor(dataDir), tsx: variant.tsx })
  )
  const after = yield* exitedChildrenCpuTimeMs
  if (result.exitCode !== 0 || !result.stdout.startsWith("brein_sk_")) {
    return yield* new ChildFailed({ name: `${variant.label} keys create`, message: `exited ${result.exitCode}\n${result.stderr}` })
  }
  return { ms: Duration.toMillis(took), cpu: Option.zipWith(after, before, (a, b) => a - b) }
})

/** While a compiled `serve` runs on the data folder: the command reuses its PostgreSQL. */
const withServerRunning = <A, E, R>(dataDir: string, effect: Effect.Effect<A, E, R>) =>
  Effect.scoped(Effect.gen(function* () {
    const port = yield* freePort
    const child = yield* spawn({ name: "serve", args: compiled.serve, env: envFor(dataDir, { PORT: String(port) }), tsx: false })
    yield* healthy(child, port)
    return yield* effect
  })).pipe(Effect.zipLeft(clusterStopped(dataDir)))

interface Sample {
  readonly ms: number
  /** CPU time the program used (user + system): what the wall time would be on an idle machine, roughly */
  readonly cpu: Option.Option<number>
}

const median = (samples: ReadonlyArray<number>) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? 0
const ms = (value: number) => `${value.toFixed(0)} ms`

const row = (what: string, ours: ReadonlyArray<Sample>, baseline: ReadonlyArray<Sample>, goal: number) => {
  const [a, b] = [median(ours.map((s) => s.ms)), median(baseline.map((s) => s.ms))]
  const cpu = Option.match(Option.all(ours.map((s) => s.cpu)), { onNone: () => "n/a", onSome: (all) => ms(median(all)) })
  const verdict = a <= goal ? "met" : "MISSED"
  return `  ${what.padEnd(30)} ${ms(a).padStart(9)} ${cpu.padStart(9)} ${ms(b).padStart(9)} ${
    `${(a / b).toFixed(2)}×`.padStart(7)
  }   ≤ ${goal} ms: ${verdict}`
}

const samples = (all: ReadonlyArray<Sample>) => all.map((s) => s.ms.toFixed(0)).join(" ")

const program = Effect.gen(function* () {
  const { runs, nodeFlags } = yield* settings
  const fs = yield* FileSystem.FileSystem
  const dataDir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-bench-startup-" })
  // as root the cluster runs as the postgres user, which must be able to enter the temp folder
  yield* fs.chmod(dataDir, 0o755)
  yield* Console.log(
    `bench:startup  compiled (node ${
      nodeFlags.join(" ")
    } dist/bin/brein.js, bin/brein.js) vs tsx (src/main.ts); embedded PostgreSQL in a new data folder; median of ${runs} runs; load average ${
      Os.loadavg()[0]?.toFixed(1)
    } on ${Os.cpus().length} CPUs`
  )

  const cold = yield* timeToHealth(compiled, dataDir, nodeFlags)
  yield* Console.log(`\n  first start of a new data folder (initdb + migrations + demo key), compiled: ${ms(cold.ms)} to /health`)

  const times = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.all(Array.from({ length: runs }, () => effect))
  const serve = {
    compiled: yield* times(timeToHealth(compiled, dataDir, nodeFlags)),
    tsx: yield* times(timeToHealth(typescript, dataDir, nodeFlags))
  }
  const alone = { compiled: yield* times(timeKeysCreate(compiled, dataDir)), tsx: yield* times(timeKeysCreate(typescript, dataDir)) }
  const shared = yield* withServerRunning(
    dataDir,
    Effect.all({ compiled: times(timeKeysCreate(compiled, dataDir)), tsx: times(timeKeysCreate(typescript, dataDir)) })
  )

  yield* Console.log(
    [
      "",
      `  ${"".padEnd(30)} ${"compiled".padStart(9)} ${"its CPU".padStart(9)} ${"tsx".padStart(9)} ${"ratio".padStart(7)}   goal`,
      row("warm start to /health", serve.compiled, serve.tsx, GOALS.serve),
      row("keys create, service running", shared.compiled, shared.tsx, GOALS.keys),
      row("keys create, service stopped", alone.compiled, alone.tsx, GOALS.keys),
      "",
      `  compiled samples (ms): serve ${samples(serve.compiled)} | keys running ${samples(shared.compiled)} | keys stopped ${
        samples(alone.compiled)
      }`,
      "  its CPU: user + system time of brein's node process to /health; of the whole command (and a PostgreSQL it started) for keys"
    ].join("\n")
  )
})

program.pipe(
  Effect.scoped,
  Effect.provide(Layer.mergeAll(NodeContext.layer, FetchHttpClient.layer, LoggingLive)),
  settingsFirst(settings),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
