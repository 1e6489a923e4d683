import { Config, Duration, Effect, Schema } from "effect"
import { MAX_AWARDS, MAX_COMPANIES } from "../../schema/catalog/SeedSizes.ts"
import { type Range, setting, WholeNumberFromString, WholeNumbersFromString } from "../../schema/Setting.ts"
import { reportFailure } from "../cli/Failure.ts"

/** A bench's whole-number setting within `range`: a value outside it fails naming the setting, the value and the range. */
export const wholeNumber = (name: string, range: Range, fallback: number) =>
  setting(name, WholeNumberFromString(range)).pipe(Config.withDefault(fallback))

/** A bench's setting that names one of `choices`; another value fails naming the setting, the value and the choices. */
export const oneOf = <const L extends readonly [string, ...Array<string>]>(name: string, choices: L, fallback: L[number]) =>
  setting(name, Schema.compose(Schema.String, Schema.Literal(...choices)).annotations({ description: `one of ${choices.join(", ")}` }))
    .pipe(
      Config.withDefault(fallback)
    )

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

/** BENCH_COMPANIES: the directory sizes bench:companies seeds and measures, one after the other. */
export const CompanySizes = (fallback: readonly [number, ...Array<number>]) =>
  setting("BENCH_COMPANIES", WholeNumbersFromString({ min: 1, max: MAX_COMPANIES, unit: "companies" })).pipe(Config.withDefault(fallback))

/** BENCH_AWARDS: the Mercado sizes bench:market seeds and measures, one after the other. */
export const AwardSizes = (fallback: readonly [number, ...Array<number>]) =>
  setting("BENCH_AWARDS", WholeNumbersFromString({ min: 1, max: MAX_AWARDS, unit: "awards" })).pipe(Config.withDefault(fallback))

/**
 * A bench's settings read before it starts anything: one that is refused ends it as the command line ends on
 * a refused setting (`brein: …` on stderr, exit 1); otherwise the bench runs, and reads them where it needs them.
 */
export const settingsFirst = <S>(settings: Config.Config<S>) => <A, E, R>(bench: Effect.Effect<A, E, R>) =>
  Effect.matchCauseEffect(settings, { onFailure: reportFailure, onSuccess: () => bench })
