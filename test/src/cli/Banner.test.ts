import { assert, describe, it } from "@effect/vitest"
import { Console, Effect, Layer, Logger, LogLevel } from "effect"
import { execFileSync } from "node:child_process"
import { DEMO_WORKSPACE, KEY_PREFIX, Workspaces } from "../../../services/workspace/Workspaces.ts"
import { announceDemo, demoBanner } from "../../../src/cli/ServeApp.ts"
import { ServicesTest } from "../../support/TestLayers.ts"

/** What the first start wrote to stderr directly and what it logged, on a fresh database. */
const firstStart = (terminal: boolean) =>
  Effect.gen(function* () {
    const printed: Array<string> = []
    const logged: Array<string> = []
    const logger = Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void logged.push(line)))
    const run = Console.consoleWith((console) =>
      Console.withConsole(announceDemo(terminal), { ...console, error: (...args) => Effect.sync(() => void printed.push(args.join(" "))) })
    ).pipe(Effect.provide(Layer.merge(logger, Logger.minimumLogLevel(LogLevel.Info))))
    yield* run
    const demo = (yield* (yield* Workspaces).list()).find((w) => w.name === DEMO_WORKSPACE)
    const first = { printed: printed.join("\n"), logged: logged.join("\n"), demo }
    printed.length = 0
    logged.length = 0
    yield* run
    return { ...first, again: printed.length + logged.length }
  }).pipe(Effect.provide(Layer.fresh(ServicesTest)))

describe("the first start's banner", () => {
  it("holds an export line that, pasted into a shell, sets BREIN_API_KEY, and a curl line that uses it", () => {
    const key = "brein_sk_Abc-123_xyz"
    const banner = demoBanner(key, 9999)
    const exportLine = banner.split("\n").map((line) => line.trim()).find((line) => line.startsWith("export "))
    assert.isDefined(exportLine)
    const pasted = execFileSync("bash", ["-c", `${exportLine}; printf %s "$BREIN_API_KEY"`], { encoding: "utf8", env: {} })
    assert.strictEqual(pasted, key)
    assert.include(banner, `-H "Authorization: Bearer $BREIN_API_KEY"`)
    assert.include(banner, "http://localhost:9999/api/v1/tools/core.timestamp.now/execute")
  })

  it.effect("on a terminal shows the demo key once, as a line to paste, and never logs it", () =>
    Effect.gen(function* () {
      const start = yield* firstStart(true)
      const key = /export BREIN_API_KEY=(\S+)/.exec(start.printed)?.[1] ?? ""
      assert.isTrue(key.startsWith(KEY_PREFIX), start.printed)
      assert.notInclude(start.logged, KEY_PREFIX)
      assert.strictEqual(start.demo?.plan, "paid")
      assert.strictEqual(start.demo?.keys, 1)
      assert.strictEqual(start.again, 0, "a later start says nothing")
    }), 30_000)

  it.effect(
    "elsewhere (a supervisor, CI) creates the demo workspace without a key and logs how to make one",
    () =>
      Effect.gen(function* () {
        const start = yield* firstStart(false)
        assert.strictEqual(start.printed, "")
        assert.notInclude(start.logged, KEY_PREFIX)
        assert.include(start.logged, "brein keys create --workspace demo")
        assert.strictEqual(start.demo?.plan, "paid")
        assert.strictEqual(start.demo?.keys, 0, "a key nobody was shown is not issued")
        assert.strictEqual(start.again, 0, "a later start says nothing")
      }),
    30_000
  )
})
