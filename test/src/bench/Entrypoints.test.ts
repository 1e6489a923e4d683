import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const tsx = fileURLToPath(new URL("../../../node_modules/tsx/dist/cli.mjs", import.meta.url))

const collect = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

// Nothing listens here: a bench that went past its settings would fail at its database, not run.
const CLOSED_DATABASE = "postgres://postgres@127.0.0.1:1/postgres"

/** `npm run bench:NAME` as it runs the bench (tsx on its entrypoint), with `env` over the test's own. */
const bench = (name: string, env: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const child = yield* Command.start(
      Command.make(process.execPath, tsx, `src/bench/${name}.ts`).pipe(
        Command.workingDirectory(root),
        Command.env({ DATABASE_URL: CLOSED_DATABASE, ...env })
      )
    )
    const [stdout, stderr, exitCode] = yield* Effect.all([collect(child.stdout), collect(child.stderr), child.exitCode], {
      concurrency: "unbounded"
    })
    return { stdout, stderr, exitCode: Number(exitCode) }
  }).pipe(Effect.scoped, Effect.timeout("90 seconds"))

/** Every bench entrypoint with a setting it refuses, and the line it must say. */
const REFUSED = [
  ["startup", "BENCH_RUNS", "0", "BENCH_RUNS must be a whole number of runs from 1 to 1,000, not \"0\""],
  ["http", "BENCH_DURATION", "abc", "BENCH_DURATION must be a whole number of seconds from 1 to 3,600, not \"abc\""],
  ["http", "BENCH_HTTP_PATH", "nope", "BENCH_HTTP_PATH must be one of bridge, httpapi, not \"nope\""],
  ["mcp", "BENCH_MCP_ERA", "2024", "BENCH_MCP_ERA must be one of modern, legacy, not \"2024\""],
  ["sync", "BENCH_DOCUMENTS", "1e3", "BENCH_DOCUMENTS must be a whole number of documents from 1 to 10,000,000, not \"1e3\""],
  ["consultar", "BENCH_REQUESTS", "-1", "BENCH_REQUESTS must be a whole number of requests from 1 to 10,000,000, not \"-1\""],
  [
    "companies",
    "BENCH_COMPANIES",
    "10,abc",
    "BENCH_COMPANIES must be whole numbers of companies from 1 to 1,500,000, separated by commas, not \"10,abc\""
  ],
  [
    "market",
    "BENCH_AWARDS",
    "10,,20",
    "BENCH_AWARDS must be whole numbers of awards from 1 to 5,000,000, separated by commas, not \"10,,20\""
  ],
  ["preview", "BENCH_RUNS", "many", "BENCH_RUNS must be a whole number of runs from 1 to 1,000, not \"many\""],
  ["anchors", "BENCH_NARRATIONS", "2.5", "BENCH_NARRATIONS must be a whole number of narrations from 1 to 100,000, not \"2.5\""]
] as const

layer(NodeContext.layer)("a bench entrypoint", (it) => {
  it.effect(
    "refuses a bad setting as the command line does: one brein: line on stderr, exit 1, nothing started",
    () =>
      Effect.gen(function* () {
        const runs = yield* Effect.forEach(
          REFUSED,
          ([name, setting, value, line]) => Effect.map(bench(name, { [setting]: value }), (run) => ({ name, setting, value, line, run })),
          { concurrency: 3 }
        )
        for (const { line, name, run, setting, value } of runs) {
          const what = `bench:${name} with ${setting}=${value}`
          assert.strictEqual(run.stderr, `brein: ${line}\n`, what)
          assert.strictEqual(run.stdout, "", what)
          assert.strictEqual(run.exitCode, 1, what)
        }
      }),
    { timeout: 240_000 }
  )
})
