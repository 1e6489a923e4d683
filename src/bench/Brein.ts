import { Data, Effect } from "effect"
import { awaitHttp, runToEnd, spawn } from "./Children.ts"

export class BreinCommandFailed extends Data.TaggedError("BreinCommandFailed")<{ readonly message: string }> {}

/**
 * The built program, as `npm start` runs it (the bench's npm script builds it first): under tsx, every
 * function brein creates per call would also be named at run time (esbuild's keepNames), a cost the
 * program users run does not have.
 */
const PROGRAM = "dist/bin/brein.js"
const program = (...args: ReadonlyArray<string>) => ({ args: [PROGRAM, ...args], tsx: false })

export interface BreinOptions {
  readonly databaseUrl: string
  readonly dataDir: string
}

/** The key the served brein seals its cursors with, so that the bench can seal the cursors of the pages it asks for. */
export const BENCH_CURSOR_KEY = Buffer.alloc(32, 7)

// The per-key abuse limit and the hourly read ceiling stay on (their cost is part of what is measured) but far
// above what one key sends here.
const envFor = (options: BreinOptions) => ({
  DATABASE_URL: options.databaseUrl,
  BREIN_DATA_DIR: options.dataDir,
  BREIN_CURSOR_KEY: BENCH_CURSOR_KEY.toString("base64"),
  BREIN_RATE_LIMIT_KEY: "100000000/60s",
  BREIN_READS_PER_HOUR_PAID: "100000000"
})

/** `brein keys create` against the bench database: migrates it and prints the key alone on stdout. */
export const createKey = Effect.fn("Bench.createKey")(function* (options: BreinOptions) {
  const result = yield* runToEnd({
    name: "brein keys create",
    ...program("keys", "create", "--workspace", "bench", "--plan", "paid"),
    env: envFor(options)
  })
  const key = result.stdout.trim()
  if (result.exitCode !== 0 || key === "") {
    return yield* new BreinCommandFailed({ message: `keys create exited ${result.exitCode}\n${result.stderr}` })
  }
  return key
})

/**
 * `brein serve` on `port` in its own process; answers /health before this returns. `fromSources` serves
 * the TypeScript sources under tsx instead of the built program: a CPU profile then names brein's files
 * (in the bundle, brein and its libraries share one file).
 */
export const serveBrein = Effect.fn("Bench.serveBrein")(function* (
  options: BreinOptions & { readonly port: number; readonly nodeFlags: ReadonlyArray<string>; readonly fromSources?: boolean }
) {
  const child = yield* spawn({
    name: "brein",
    ...(options.fromSources === true ? { args: ["src/main.ts", "serve"] } : program("serve")),
    env: { ...envFor(options), PORT: String(options.port) },
    nodeFlags: options.nodeFlags
  })
  yield* awaitHttp(child, `http://127.0.0.1:${options.port}/health`)
  return child
})

/** `brein audit verify`: its one-line verdict and whether the chain is intact. */
export const verifyAudit = Effect.fn("Bench.verifyAudit")(function* (options: BreinOptions) {
  const result = yield* runToEnd({ name: "brein audit verify", ...program("audit", "verify"), env: envFor(options) })
  const verdict = result.stdout.trim() || result.stderr.trim().split("\n").slice(-3).join("\n")
  return { intact: result.exitCode === 0, verdict }
})

/** `brein seed` against the bench database: replaces the directory; its one-line report (counts, load time). */
export const seedDirectory = Effect.fn("Bench.seedDirectory")(
  function* (options: BreinOptions & { readonly companies: number; readonly seed: string }) {
    const result = yield* runToEnd({
      name: "brein seed",
      ...program("seed", "--only", "directory", "--companies", String(options.companies), "--seed", options.seed),
      env: envFor(options)
    })
    if (result.exitCode !== 0) return yield* new BreinCommandFailed({ message: `seed exited ${result.exitCode}\n${result.stderr}` })
    return result.stdout.trim()
  }
)

/** Replaces the Mercado data set with a generated one of `awards` contracts (`brein seed --only mercado`). */
export const seedMarket = Effect.fn("Bench.seedMarket")(
  function* (options: BreinOptions & { readonly awards: number; readonly seed: string }) {
    const result = yield* runToEnd({
      name: "brein seed",
      ...program("seed", "--only", "mercado", "--awards", String(options.awards), "--seed", options.seed),
      env: envFor(options)
    })
    if (result.exitCode !== 0) return yield* new BreinCommandFailed({ message: `seed exited ${result.exitCode}\n${result.stderr}` })
    return result.stdout.trim()
  }
)
