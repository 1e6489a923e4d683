import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Clock, ConfigProvider, Context, Duration, Effect, Fiber, Layer, TestClock } from "effect"
import { lunaModelSettings, ModelGatewayLive } from "../../../layers/LunaModel.ts"
import type { ModelRequest } from "../../../schema/luna/Model.ts"
import type { ChatPolicy } from "../../../services/luna/ChatCompletions.ts"
import { ModelGateway } from "../../../services/luna/ModelGateway.ts"
import { LunaModelSettings, ModelGatewayHttp } from "../../../services/luna/ModelGatewayHttp.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { FakeModelServer, type FakeModelServerApi, hang, malformed, status, text, toolCalls } from "../../support/FakeModelServer.ts"

const PRIMARY = "deepseek-v4-flash"
const FALLBACK = "gpt-5.6-luna"

// Retries come at once; a healthy answer is never cut short by a loaded machine.
const QUICK: Partial<ChatPolicy> = { backoff: Duration.millis(1), timeout: Duration.seconds(20) }

const configFrom = (env: Record<string, string>) => ConfigProvider.fromMap(new Map(Object.entries(env)))

/** The gateway as the environment configures it, with the retry waits of `policy`. */
const gatewayOver = (env: Record<string, string>, policy: Partial<ChatPolicy> = {}) =>
  Layer.build(
    ModelGatewayHttp.layer.pipe(
      Layer.provide(Layer.effect(
        LunaModelSettings,
        Effect.map(lunaModelSettings, (settings) => ({ ...settings, policy: { ...settings.policy, ...QUICK, ...policy } }))
      )),
      Layer.provide(NodeHttpClient.layerUndici)
    )
  ).pipe(Effect.map(Context.get(ModelGateway)), Effect.withConfigProvider(configFrom(env)))

const primaryOnly = (server: FakeModelServerApi) => ({ LUNA_MODEL_BASE_URL: server.baseUrl, LUNA_MODEL_API_KEY: "sk-primary" })
const withFallback = (server: FakeModelServerApi) => ({
  ...primaryOnly(server),
  LUNA_FALLBACK_BASE_URL: server.baseUrl,
  LUNA_FALLBACK_API_KEY: "sk-fallback"
})

const objectOf = (properties: Record<string, unknown>) => ({ type: "object", properties })

const request: ModelRequest = {
  messages: [{ role: "system", content: "Eres Luna." }, { role: "user", content: "¿Cuánto vendí en julio?" }],
  functions: [
    { tool: "sii.rcv.consultar", description: "El registro de compras y ventas", parameters: objectOf({ periodo: { type: "string" } }) },
    { tool: "core.timestamp.now", description: "La hora", parameters: objectOf({}) },
    { tool: "companies_search", description: "Empresas", parameters: objectOf({ q: { type: "string" } }) }
  ]
}

const ARGUMENTS = `{ "periodo": "2026-07" }`

describe("ModelGateway over chat completions", () => {
  it.scopedLive("a tool call goes out under a safe name and comes back under its registry id, arguments as written", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.script(
        PRIMARY,
        toolCalls({ id: "call_1", name: "sii__rcv__consultar", arguments: ARGUMENTS }),
        text("Vendiste 1.029.555 pesos.", { prompt_tokens: 412, completion_tokens: 9 })
      )
      const gateway = yield* gatewayOver(primaryOnly(server))

      const first = yield* gateway.complete(request)
      assert.deepStrictEqual(first, {
        content: null,
        tool_calls: [{ id: "call_1", tool: "sii.rcv.consultar", arguments: ARGUMENTS }],
        model: PRIMARY
      })

      const second = yield* gateway.complete({
        ...request,
        messages: [
          ...request.messages,
          { role: "assistant", content: null, tool_calls: first.tool_calls },
          { role: "tool", tool_call_id: "call_1", content: `{"montoTotal":1029555}` }
        ]
      })
      assert.deepStrictEqual(second, {
        content: "Vendiste 1.029.555 pesos.",
        tool_calls: [],
        model: PRIMARY,
        usage: { prompt_tokens: 412, completion_tokens: 9 }
      })

      const [seenFirst, seenSecond] = yield* server.requests
      assert.strictEqual(seenFirst?.authorization, "Bearer sk-primary")
      assert.strictEqual(seenFirst?.path, "/v1/chat/completions")
      assert.strictEqual(seenFirst?.body?.model, PRIMARY)
      assert.strictEqual(seenFirst?.body?.tool_choice, "auto")
      assert.deepStrictEqual(seenFirst?.body?.tools?.map((t) => t.function.name), [
        "sii__rcv__consultar",
        "core__timestamp__now",
        "companies_search"
      ])
      assert.deepStrictEqual(seenSecond?.body?.messages.slice(2), [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "sii__rcv__consultar", arguments: ARGUMENTS } }]
        },
        { role: "tool", tool_call_id: "call_1", content: `{"montoTotal":1029555}` }
      ])
    }))

  it.scopedLive("a reply naming a function the request did not offer comes back as a tool the loop refuses", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.script(PRIMARY, toolCalls({ id: "call_9", name: "gmail_read", arguments: "{}" }))
      const reply = yield* (yield* gatewayOver(primaryOnly(server))).complete(request)
      assert.deepStrictEqual(reply.tool_calls, [{ id: "call_9", tool: "unknown:gmail_read", arguments: "{}" }])
    }))

  it.scopedLive("without functions the request carries no tools and no tool_choice", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.script(PRIMARY, text("Hola."))
      const reply = yield* (yield* gatewayOver(primaryOnly(server))).complete({ messages: request.messages, functions: [] })
      assert.strictEqual(reply.content, "Hola.")
      const [seen] = yield* server.requests
      assert.deepStrictEqual([seen?.body?.tools, seen?.body?.tool_choice], [undefined, undefined])
    }))

  it.scopedLive("a primary failing with 500 is retried, then the fallback answers, with its own key", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.always(PRIMARY, status(500, "upstream exploded"))
      yield* server.script(FALLBACK, text("Desde el respaldo."))
      const reply = yield* (yield* gatewayOver(withFallback(server))).complete(request)
      assert.deepStrictEqual([reply.model, reply.content], [FALLBACK, "Desde el respaldo."])
      assert.strictEqual((yield* server.requestsFor(PRIMARY)).length, 3)
      const fallback = yield* server.requestsFor(FALLBACK)
      assert.deepStrictEqual(fallback.map((r) => r.authorization), ["Bearer sk-fallback"])
      assert.deepStrictEqual(fallback[0]?.body?.tools?.map((t) => t.function.name)[0], "sii__rcv__consultar")
    }))

  it.scopedLive("a 429 is retried on the primary, which then answers", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.script(PRIMARY, status(429, "slow down", "0"), text("Ahora sí."))
      const reply = yield* (yield* gatewayOver(withFallback(server))).complete(request)
      assert.deepStrictEqual([reply.model, reply.content], [PRIMARY, "Ahora sí."])
      assert.strictEqual((yield* server.requestsFor(PRIMARY)).length, 2)
      assert.strictEqual((yield* server.requestsFor(FALLBACK)).length, 0)
    }))

  it.scoped("the retry after a 429 waits as long as Retry-After asks", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.script(PRIMARY, status(429, "slow down", "2"), text("Ahora sí."))
      const gateway = yield* gatewayOver(primaryOnly(server))
      const call = yield* Effect.fork(gateway.complete(request))
      const start = yield* Clock.currentTimeMillis
      const testClock = yield* TestClock.testClock()
      const live = Effect.withClock(Clock.make())
      yield* live(waitUntil(testClock.sleeps, Chunk.some((at) => at === start + 2_000), { what: "a retry waiting 2 s" }))
      assert.strictEqual((yield* server.requestsFor(PRIMARY)).length, 1)
      yield* TestClock.adjust("2 seconds")
      const reply = yield* Fiber.join(call)
      assert.strictEqual(reply.content, "Ahora sí.")
      assert.strictEqual((yield* server.requestsFor(PRIMARY)).length, 2)
    }))

  it.scopedLive("a Retry-After longer than the cap is not waited for: the fallback answers (a key never goes to another host)", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.always(PRIMARY, status(429, "quota", "3600"))
      yield* server.script(FALLBACK, text("Respaldo."))
      const env = { ...primaryOnly(server), LUNA_FALLBACK_BASE_URL: server.baseUrl }
      const reply = yield* (yield* gatewayOver(env)).complete(request)
      assert.strictEqual(reply.model, FALLBACK)
      assert.strictEqual((yield* server.requestsFor(PRIMARY)).length, 1)
      assert.deepStrictEqual((yield* server.requestsFor(FALLBACK)).map((r) => r.authorization), [undefined])
    }))

  it.scopedLive("a 401 on the primary is not retried; LUNA_FALLBACK_MODEL alone asks the primary's endpoint, with its key", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.always(PRIMARY, status(401, "Authentication Fails"))
      yield* server.script("deepseek-v4-pro", text("Otro modelo."))
      const reply = yield* (yield* gatewayOver({ ...primaryOnly(server), LUNA_FALLBACK_MODEL: "deepseek-v4-pro" })).complete(request)
      assert.deepStrictEqual([reply.model, reply.content], ["deepseek-v4-pro", "Otro modelo."])
      assert.strictEqual((yield* server.requestsFor(PRIMARY)).length, 1)
      assert.deepStrictEqual((yield* server.requestsFor("deepseek-v4-pro")).map((r) => r.authorization), ["Bearer sk-primary"])
    }))

  it.scopedLive("both down: ModelUnavailable names each model and why, and never the key", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.always(PRIMARY, status(503, "overloaded"))
      yield* server.always(FALLBACK, status(401, "Incorrect API key provided: sk-fallback"))
      const error = yield* Effect.flip((yield* gatewayOver(withFallback(server))).complete(request))
      assert.strictEqual(error._tag, "ModelUnavailable")
      if (error._tag !== "ModelUnavailable") return
      assert.deepStrictEqual(error.attempts, [
        { model: PRIMARY, problem: "HTTP 503: overloaded" },
        { model: FALLBACK, problem: "HTTP 401: Incorrect API key provided: [redacted]" }
      ])
      assert.include(error.message, PRIMARY)
      assert.include(error.message, FALLBACK)
      assert.notInclude(JSON.stringify(error), "sk-fallback")
      assert.strictEqual((yield* server.requests).length, 4)
    }))

  it.scopedLive("an endpoint that refuses connections is a typed failure naming the model", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.scoped(Effect.map(FakeModelServer.make, (server) => server.baseUrl))
      const error = yield* Effect.flip((yield* gatewayOver({ LUNA_MODEL_BASE_URL: closed })).complete(request))
      assert.strictEqual(error._tag, "ModelUnavailable")
      if (error._tag !== "ModelUnavailable") return
      assert.deepStrictEqual(error.attempts.map((a) => a.model), [PRIMARY])
      assert.match(error.attempts[0]?.problem ?? "", /^no connection: /)
    }))

  it.scoped("a model that hangs times out once (a timeout is not retried: the turn would wait minutes) and the fallback answers", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.always(PRIMARY, hang)
      yield* server.script(FALLBACK, text("Respaldo."))
      const gateway = yield* gatewayOver(withFallback(server), { backoff: Duration.zero, timeout: Duration.seconds(60) })
      const call = yield* Effect.fork(gateway.complete(request))
      const live = Effect.withClock(Clock.make())
      yield* live(waitUntil(server.requestsFor(PRIMARY), (seen) => seen.length === 1, { what: "the call on the primary" }))
      yield* TestClock.adjust("60 seconds")
      const reply = yield* Fiber.join(call)
      assert.deepStrictEqual([reply.model, reply.content], [FALLBACK, "Respaldo."])
      assert.strictEqual((yield* server.requestsFor(PRIMARY)).length, 1)
    }))

  it.scopedLive("a body that is not a chat completion is a typed failure, not retried", () =>
    Effect.gen(function* () {
      const server = yield* FakeModelServer.make
      yield* server.script(PRIMARY, malformed(), malformed("<html>502 Bad Gateway</html>"))
      const gateway = yield* gatewayOver(primaryOnly(server))
      const wrongShape = yield* Effect.flip(gateway.complete(request))
      const notJson = yield* Effect.flip(gateway.complete(request))
      assert.deepStrictEqual([wrongShape._tag, notJson._tag], ["ModelUnavailable", "ModelUnavailable"])
      if (wrongShape._tag !== "ModelUnavailable" || notJson._tag !== "ModelUnavailable") return
      assert.match(wrongShape.attempts[0]?.problem ?? "", /^the answer is not a chat completion: .*choices/s)
      assert.deepStrictEqual(notJson.attempts, [{ model: PRIMARY, problem: "the answer is not JSON" }])
      assert.include(wrongShape.hint ?? "", "LUNA_FALLBACK_MODEL")
      assert.strictEqual((yield* server.requests).length, 2)
    }))

  it.scoped("with no base URL the layer builds, and a call fails with ModelNotConfigured naming the settings", () =>
    Effect.gen(function* () {
      for (const env of [{}, { LUNA_MODEL_API_KEY: "sk-primary", LUNA_FALLBACK_BASE_URL: "http://127.0.0.1:9/v1" }]) {
        const gateway = yield* Layer.build(ModelGatewayLive).pipe(
          Effect.map(Context.get(ModelGateway)),
          Effect.withConfigProvider(configFrom(env))
        )
        const error = yield* Effect.flip(gateway.complete(request))
        assert.strictEqual(error._tag, "ModelNotConfigured")
        assert.include(error.message, "LUNA_MODEL_BASE_URL")
      }
    }))
})
