import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { issueKey } from "../mcp/McpTestServer.ts"
import { raw, type RawAnswer } from "../mcp/RawHttp.ts"
import { limitedServer } from "./RateLimitServer.ts"

const REST = "/api/v1/tools/echo.message.reflect/execute"
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
})

const rest = (key: string) =>
  raw({
    method: "POST",
    path: REST,
    headers: { ...json, authorization: `Bearer ${key}` },
    body: JSON.stringify({ input: { message: "hi" } })
  })
const mcp = (key: string) => raw({ method: "POST", path: "/mcp", headers: { ...json, authorization: `Bearer ${key}` }, body: initialize })
const unknownKey = () => `brein_sk_${randomBytes(16).toString("hex")}`

const RateLimitedBody = Schema.parseJson(
  Schema.Struct({ _tag: Schema.Literal("RateLimited"), message: Schema.String, retryAfterSeconds: Schema.Int })
)

/** A REST 429: the typed body, and a Retry-After header that says the same seconds. */
const restLimited = (answer: RawAnswer) =>
  Effect.gen(function* () {
    assert.strictEqual(answer.status, 429, answer.text)
    const body = yield* Schema.decodeUnknown(RateLimitedBody)(answer.text)
    assert.strictEqual(answer.headers["retry-after"], String(body.retryAfterSeconds))
    assert.isAbove(body.retryAfterSeconds, 0)
    return body
  }).pipe(Effect.orDie)

/** A /mcp 429: a JSON-RPC error with the typed error in `data`, and Retry-After. */
const mcpLimited = (answer: RawAnswer) =>
  Effect.gen(function* () {
    assert.strictEqual(answer.status, 429, answer.text)
    const body = yield* Schema.decodeUnknown(Schema.parseJson(Schema.Struct({
      jsonrpc: Schema.Literal("2.0"),
      id: Schema.NullOr(Schema.Union(Schema.String, Schema.Number)),
      error: Schema.Struct({
        code: Schema.Literal(-32029),
        message: Schema.String,
        data: Schema.Struct({ _tag: Schema.Literal("RateLimited"), message: Schema.String, retryAfterSeconds: Schema.Int })
      })
    })))(answer.text)
    assert.strictEqual(answer.headers["retry-after"], String(body.error.data.retryAfterSeconds))
    return body
  }).pipe(Effect.orDie)

const perKey = limitedServer({ BREIN_RATE_LIMIT_KEY: "3/60s" })

layer(perKey.layer, { excludeTestServices: true })("requests per API key", (it) => {
  it.effect("one key's budget is shared by REST and /mcp; over it both answer 429 with Retry-After; another key is unaffected; after the wait it passes", () =>
    Effect.gen(function* () {
      const a = yield* issueKey("limited-a", "free")
      const b = yield* issueKey("limited-b", "free")
      assert.strictEqual((yield* rest(a)).status, 200)
      assert.strictEqual((yield* mcp(a)).status, 200)
      assert.strictEqual((yield* rest(a)).status, 200)

      const limited = yield* restLimited(yield* rest(a))
      assert.include(limited.message, "this API key sent more than 3 requests in 60 s; retry in ")
      const rpc = yield* mcpLimited(yield* mcp(a))
      assert.strictEqual(rpc.id, 1, "the JSON-RPC error answers the request's id")

      assert.strictEqual((yield* rest(b)).status, 200, "another key on REST")
      assert.strictEqual((yield* mcp(b)).status, 200, "another key on /mcp")

      yield* perKey.skip(`${limited.retryAfterSeconds} seconds`)
      assert.strictEqual((yield* rest(a)).status, 200, "after Retry-After")
    }))

  it.effect("the OpenAPI document declares the 429 on every route behind a key", () =>
    Effect.gen(function* () {
      const document = JSON.parse((yield* raw({ method: "GET", path: "/openapi.json" })).text) as {
        readonly paths: Record<string, Record<string, { readonly responses: Record<string, unknown> }>>
      }
      for (
        const [path, method] of [["/api/v1/tools/{id}/execute", "post"], ["/api/v1/connections", "get"], [
          "/api/v1/connections",
          "post"
        ]] as const
      ) {
        assert.property(document.paths[path]?.[method]?.responses ?? {}, "429", `${method} ${path}`)
      }
    }))
})

const failures = limitedServer({ BREIN_RATE_LIMIT_FAILURES: "4/60s" })

layer(failures.layer, { excludeTestServices: true })("failed authentications per source address", (it) => {
  it.effect("after N bad keys an address gets 429 on REST and /mcp with no further key lookup, whatever key it sends, until the window slides", () =>
    Effect.gen(function* () {
      const good = yield* issueKey("failures-good", "free")
      const before = failures.lookups.count
      for (const send of [rest, mcp, rest, mcp]) assert.strictEqual((yield* send(unknownKey())).status, 401)
      assert.strictEqual(failures.lookups.count - before, 4)

      const limited = yield* restLimited(yield* rest(unknownKey()))
      assert.include(limited.message, "this address sent more than 4 requests in 60 s with a missing, unknown or revoked API key")
      yield* mcpLimited(yield* mcp(unknownKey()))
      for (let i = 0; i < 20; i++) assert.strictEqual((yield* rest(unknownKey())).status, 429)
      yield* restLimited(yield* raw({ method: "POST", path: REST, headers: json, body: "{}" }))
      yield* restLimited(yield* rest(good))
      assert.strictEqual(failures.lookups.count - before, 4, "refused before any key lookup")

      yield* failures.skip(`${limited.retryAfterSeconds} seconds`)
      assert.strictEqual((yield* rest(good)).status, 200, "after Retry-After")
      assert.strictEqual((yield* rest(unknownKey())).status, 401)
      assert.strictEqual((yield* rest(unknownKey())).status, 429, "one failure fitted; the window is full again")
    }))
})
