import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Duration, Effect } from "effect"
import { AwardSizes, CompanySizes, oneOf, Settings, settingsFirst } from "../../../src/bench/Settings.ts"

const from = (env: ReadonlyArray<readonly [string, string]>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(env)))
const settingsFrom = (env: ReadonlyArray<readonly [string, string]>) => Settings.pipe(from(env))

const companies = CompanySizes([100_000, 1_000_000])
const awards = AwardSizes([200_000])

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

  it.effect("BENCH_COMPANIES and BENCH_AWARDS are sizes separated by commas, their defaults when unset", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* companies.pipe(from([])), [100_000, 1_000_000])
      assert.deepStrictEqual(yield* awards.pipe(from([])), [200_000])
      assert.deepStrictEqual(yield* companies.pipe(from([["BENCH_COMPANIES", "20000"]])), [20_000])
      assert.deepStrictEqual(yield* awards.pipe(from([["BENCH_AWARDS", " 10, 20 ,30 "]])), [10, 20, 30])
    }))

  it.effect("refuse a size that is no whole number, an empty one, or one past what the seed makes, naming the setting", () =>
    Effect.gen(function* () {
      const companiesSay = "BENCH_COMPANIES must be whole numbers of companies from 1 to 1,500,000, separated by commas, not"
      const awardsSay = "BENCH_AWARDS must be whole numbers of awards from 1 to 5,000,000, separated by commas, not"
      const cases = [
        [companies, "BENCH_COMPANIES", "10,abc", companiesSay],
        [companies, "BENCH_COMPANIES", "10,,20", companiesSay],
        [companies, "BENCH_COMPANIES", "-5", companiesSay],
        [companies, "BENCH_COMPANIES", "", companiesSay],
        [companies, "BENCH_COMPANIES", "1e3", companiesSay],
        [companies, "BENCH_COMPANIES", "2000000", companiesSay],
        [awards, "BENCH_AWARDS", "0", awardsSay],
        [awards, "BENCH_AWARDS", "100,", awardsSay],
        [awards, "BENCH_AWARDS", "1.5", awardsSay]
      ] as const
      for (const [config, name, value, message] of cases) {
        const error = yield* Effect.flip(config.pipe(from([[name, value]])))
        assert.include(String(error), `${message} ${JSON.stringify(value)}`, `${name}=${value}`)
      }
    }))

  it.effect("a choice is one of its names, its default when unset, and refused naming the choices otherwise", () =>
    Effect.gen(function* () {
      const era = oneOf("BENCH_ERA", ["modern", "legacy"], "modern")
      assert.strictEqual(yield* era.pipe(from([])), "modern")
      assert.strictEqual(yield* era.pipe(from([["BENCH_ERA", "legacy"]])), "legacy")
      const error = yield* Effect.flip(era.pipe(from([["BENCH_ERA", "Legacy"]])))
      assert.include(String(error), "BENCH_ERA must be one of modern, legacy, not \"Legacy\"")
    }))

  it.effect("a bench whose settings are accepted runs", () =>
    Effect.gen(function* () {
      const ran = yield* Effect.succeed("ran").pipe(settingsFirst(Config.all([companies, Settings])), from([["BENCH_COMPANIES", "5"]]))
      assert.strictEqual(ran, "ran")
    }))
})
