import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { ModelNotConfigured } from "../schema/luna/LunaErrors.ts"
import { DurationFromString, setting as decoded } from "../schema/Setting.ts"
import { CHAT_POLICY_DEFAULTS, type ChatEndpoint } from "../services/luna/ChatCompletions.ts"
import { LunaModelSettings, ModelGatewayHttp } from "../services/luna/ModelGatewayHttp.ts"

export const LUNA_MODEL_DEFAULT = "deepseek-v4-flash"
export const LUNA_FALLBACK_MODEL_DEFAULT = "gpt-5.6-luna"

const setting = (name: string) => Config.string(name).pipe(Config.option, Config.map(Option.filter((value) => value.trim() !== "")))

const secret = (name: string) =>
  Config.redacted(name).pipe(Config.option, Config.map(Option.filter((key) => Redacted.value(key).trim() !== "")))

const withKey = (key: Option.Option<Redacted.Redacted<string>>) =>
  Option.match(key, { onNone: () => ({}), onSome: (apiKey) => ({ apiKey }) })

const config = Config.all({
  baseUrl: setting("LUNA_MODEL_BASE_URL"),
  apiKey: secret("LUNA_MODEL_API_KEY"),
  model: setting("LUNA_MODEL"),
  fallbackBaseUrl: setting("LUNA_FALLBACK_BASE_URL"),
  fallbackApiKey: secret("LUNA_FALLBACK_API_KEY"),
  fallbackModel: setting("LUNA_FALLBACK_MODEL"),
  timeout: decoded("LUNA_MODEL_TIMEOUT", DurationFromString).pipe(Config.withDefault(CHAT_POLICY_DEFAULTS.timeout))
})

/**
 * No LUNA_MODEL_BASE_URL: no endpoints (a turn fails with ModelNotConfigured). A fallback exists when
 * LUNA_FALLBACK_BASE_URL or LUNA_FALLBACK_MODEL is set. With its own base URL it gets only
 * LUNA_FALLBACK_API_KEY (a key never goes to another host than its own); with LUNA_FALLBACK_MODEL
 * alone it is another model on the primary's endpoint, with the primary's key unless
 * LUNA_FALLBACK_API_KEY is set.
 */
const endpointsOf = (c: Config.Config.Success<typeof config>): ReadonlyArray<ChatEndpoint> => {
  if (Option.isNone(c.baseUrl)) return []
  const primary: ChatEndpoint = {
    baseUrl: c.baseUrl.value,
    model: Option.getOrElse(c.model, () => LUNA_MODEL_DEFAULT),
    ...withKey(c.apiKey)
  }
  const fallback = Option.match(c.fallbackBaseUrl, {
    onSome: (baseUrl) =>
      Option.some<ChatEndpoint>({
        baseUrl,
        model: Option.getOrElse(c.fallbackModel, () => LUNA_FALLBACK_MODEL_DEFAULT),
        ...withKey(c.fallbackApiKey)
      }),
    onNone: () =>
      Option.map(c.fallbackModel, (model): ChatEndpoint => ({
        baseUrl: primary.baseUrl,
        model,
        ...withKey(Option.orElse(c.fallbackApiKey, () => c.apiKey))
      }))
  })
  return [primary, ...Option.toArray(fallback)]
}

/** Luna's model settings from the environment; the retry waits are CHAT_POLICY_DEFAULTS. */
export const lunaModelSettings = Config.map(config, (c) => ({
  endpoints: endpointsOf(c),
  policy: { ...CHAT_POLICY_DEFAULTS, timeout: c.timeout }
}))

export const LunaModelSettingsLive = Layer.effect(
  LunaModelSettings,
  Effect.tap(lunaModelSettings, ({ endpoints }) =>
    endpoints.length === 0
      ? Effect.logInfo(ModelNotConfigured.default.message)
      : Effect.logInfo("Luna's model").pipe(Effect.annotateLogs({ models: endpoints.map((e) => e.model).join(" → ") })))
)

/** Luna's ModelGateway over the configured chat-completions endpoints (it builds without any). */
export const ModelGatewayLive = ModelGatewayHttp.layer.pipe(
  Layer.provide(LunaModelSettingsLive),
  Layer.provide(NodeHttpClient.layerUndici)
)
