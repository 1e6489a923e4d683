import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Option, Redacted } from "effect"
import { lunaModelSettings } from "../../layers/LunaModel.ts"

const settingsFrom = (env: Record<string, string>) =>
  Effect.withConfigProvider(lunaModelSettings, ConfigProvider.fromMap(new Map(Object.entries(env))))

const shown = (env: Record<string, string>) =>
  Effect.map(settingsFrom(env), ({ endpoints }) =>
    endpoints.map((e) => ({
      baseUrl: e.baseUrl,
      model: e.model,
      key: Option.getOrElse(Option.map(Option.fromNullable(e.apiKey), Redacted.value), () => "none")
    })))

describe("Luna's model settings", () => {
  it.effect("the primary alone, with the default model; an empty setting counts as unset", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({ LUNA_MODEL_BASE_URL: "https://api.deepseek.com", LUNA_MODEL_API_KEY: "sk-1", LUNA_MODEL: " " })
      assert.deepStrictEqual(settings.endpoints.map((e) => e.model), ["deepseek-v4-flash"])
      assert.isTrue(Duration.equals(settings.policy.timeout, Duration.seconds(60)))
      assert.deepStrictEqual(yield* shown({}), [])
      assert.deepStrictEqual(yield* shown({ LUNA_MODEL_BASE_URL: "" }), [])
    }))

  it.effect("a fallback with its own base URL gets only its own key; LUNA_FALLBACK_MODEL alone shares the primary's", () =>
    Effect.gen(function* () {
      const primary = { LUNA_MODEL_BASE_URL: "https://api.deepseek.com", LUNA_MODEL_API_KEY: "sk-1" }
      assert.deepStrictEqual(yield* shown({ ...primary, LUNA_FALLBACK_BASE_URL: "https://api.openai.com/v1" }), [
        { baseUrl: "https://api.deepseek.com", model: "deepseek-v4-flash", key: "sk-1" },
        { baseUrl: "https://api.openai.com/v1", model: "gpt-5.6-luna", key: "none" }
      ])
      assert.deepStrictEqual(yield* shown({ ...primary, LUNA_FALLBACK_MODEL: "deepseek-v4-pro" }), [
        { baseUrl: "https://api.deepseek.com", model: "deepseek-v4-flash", key: "sk-1" },
        { baseUrl: "https://api.deepseek.com", model: "deepseek-v4-pro", key: "sk-1" }
      ])
      assert.deepStrictEqual((yield* shown({ ...primary, LUNA_FALLBACK_MODEL: "m", LUNA_FALLBACK_API_KEY: "sk-2" }))[1]?.key, "sk-2")
    }))

  it.effect("LUNA_MODEL_TIMEOUT takes a duration; nonsense or zero is refused naming the setting", () =>
    Effect.gen(function* () {
      const settings = yield* settingsFrom({ LUNA_MODEL_TIMEOUT: "90 seconds" })
      assert.isTrue(Duration.equals(settings.policy.timeout, Duration.seconds(90)))
      for (const value of ["soon", "0 seconds"]) {
        const error = yield* Effect.flip(settingsFrom({ LUNA_MODEL_TIMEOUT: value }))
        assert.include(String(error), "LUNA_MODEL_TIMEOUT")
      }
    }))
})
