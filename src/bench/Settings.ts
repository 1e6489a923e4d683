import { Config, Duration } from "effect"
import { type Range, setting, WholeNumberFromString } from "../../schema/Setting.ts"

/** A bench's whole-number setting within `range`: a value outside it fails naming the setting, the value and the range. */
export const wholeNumber = (name: string, range: Range, fallback: number) =>
  setting(name, WholeNumberFromString(range)).pipe(Config.withDefault(fallback))

/** How many requests, documents or runs a bench may be asked for. */
export const MANY = 10_000_000

/** BENCH_NODE_FLAGS: Node flags for the servers a bench starts; the default is what `npm start` uses. */
export const NodeFlags = Config.string("BENCH_NODE_FLAGS").pipe(
  Config.withDefault("--max-semi-space-size=64"),
  Config.map((flags) => flags.split(/\s+/).filter((flag) => flag !== ""))
)

export const Settings = Config.all({
  duration: wholeNumber("BENCH_DURATION", { min: 1, max: 3_600, unit: "seconds" }, 10).pipe(Config.map(Duration.seconds)),
  warmup: wholeNumber("BENCH_WARMUP", { min: 0, max: 600, unit: "seconds" }, 2).pipe(Config.map(Duration.seconds)),
  connections: wholeNumber("BENCH_CONNECTIONS", { min: 1, max: 10_000, unit: "connections" }, 32),
  /** Baseline and brein are measured this many times, alternately; the verdict is on the median round. */
  rounds: wholeNumber("BENCH_ROUNDS", { min: 1, max: 100, unit: "rounds" }, 3),
  /** Runs brein under `node --cpu-prof` and prints its hottest frames. */
  profile: Config.boolean("BENCH_PROFILE").pipe(Config.withDefault(false)),
  /** Where to keep the raw .cpuprofile files (for DevTools); by default they go with the temp dir. */
  profileDir: Config.option(Config.string("BENCH_PROFILE_DIR")),
  /** Node flags for both servers; the default is what `npm start` uses (a larger young generation). */
  nodeFlags: NodeFlags,
  databaseUrl: Config.option(Config.redacted("DATABASE_URL"))
})

export type Settings = Config.Config.Success<typeof Settings>
