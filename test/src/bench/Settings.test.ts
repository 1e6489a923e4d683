import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect } from "effect"
import { Settings } from "../../../src/bench/Settings.ts"

const settingsFrom = (env: ReadonlyArray<readonly [string, string]>) =>
  Settings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(env))))

describe("a bench's settings", () => {
  it.effect("are their defaults when unset, and the number given when it is within its range", () =>
    Effect.gen(function* () {
      const defaults = yield* settingsFrom([])
      assert.deepStrictEqual([
        Duration.toSeconds(defaults.duration),
        Duration.toSeconds(defaults.warmup),
        defaults.connections,
        defaults.rounds
      ], [
        10,
        2,
        32,
        3
      ])
      const given = yield* settingsFrom([["BENCH_DURATION", "60"], ["BENCH_WARMUP", "0"], ["BENCH_CONNECTIONS", "1"], [
        "BENCH_ROUNDS",
        "100"
      ]])
      assert.deepStrictEqual([Duration.toSeconds(given.duration), Duration.toSeconds(given.warmup), given.connections, given.rounds], [
        60,
        0,
        1,
        100
      ])
    }))

  it.effect("refuse a number outside their range, or one not written in digits, naming the setting, the value and the range", () =>
    Effect.gen(function* () {
      const cases = [
        ["BENCH_DURATION", "0", "BENCH_DURATION must be a whole number of seconds from 1 to 3,600, not \"0\""],
        ["BENCH_DURATION", "-5", "BENCH_DURATION must be a whole number of seconds from 1 to 3,600, not \"-5\""],
        ["BENCH_WARMUP", "1e3", "BENCH_WARMUP must be a whole number of seconds from 0 to 600, not \"1e3\""],
        ["BENCH_CONNECTIONS", "0", "BENCH_CONNECTIONS must be a whole number of connections from 1 to 10,000, not \"0\""],
        ["BENCH_ROUNDS", "2.5", "BENCH_ROUNDS must be a whole number of rounds from 1 to 100, not \"2.5\""]
      ] as const
      for (const [name, value, message] of cases) {
        const error = yield* Effect.flip(settingsFrom([[name, value]]))
        assert.include(String(error), message, `${name}=${value}`)
      }
    }))
})
