import { Config, Duration } from "effect"

/** BENCH_NODE_FLAGS: Node flags for the servers a bench starts; the default is what `npm start` uses. */
export const NodeFlags = Config.string("BENCH_NODE_FLAGS").pipe(
  Config.withDefault("--max-semi-space-size=64"),
  Config.map((flags) => flags.split(/\s+/).filter((flag) => flag !== ""))
)

export const Settings = Config.all({
  duration: Config.integer("BENCH_DURATION").pipe(Config.withDefault(10), Config.map(Duration.seconds)),
  warmup: Config.integer("BENCH_WARMUP").pipe(Config.withDefault(2), Config.map(Duration.seconds)),
  connections: Config.integer("BENCH_CONNECTIONS").pipe(Config.withDefault(32)),
  /** Baseline and brein are measured this many times, alternately; the verdict is on the median round. */
  rounds: Config.integer("BENCH_ROUNDS").pipe(Config.withDefault(3)),
  /** Runs brein under `node --cpu-prof` and prints its hottest frames. */
  profile: Config.boolean("BENCH_PROFILE").pipe(Config.withDefault(false)),
  /** Where to keep the raw .cpuprofile files (for DevTools); by default they go with the temp dir. */
  profileDir: Config.option(Config.string("BENCH_PROFILE_DIR")),
  /** Node flags for both servers; the default is what `npm start` uses (a larger young generation). */
  nodeFlags: NodeFlags,
  databaseUrl: Config.option(Config.redacted("DATABASE_URL"))
})

export type Settings = Config.Config.Success<typeof Settings>
