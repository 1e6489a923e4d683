import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { limitedServer } from "../http/RateLimitServer.ts"
import { bearer, callTool, connect, issueKey } from "./McpTestServer.ts"
import { raw, type RawAnswer } from "./RawHttp.ts"

const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const call = (id: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo.message.reflect", arguments: { message: "hi" } } })

const RpcError = Schema.parseJson(Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.NullOr(Schema.Union(Schema.String, Schema.Number)),
  error: Schema.Struct({
    code: Schema.Number,
    message: Schema.String,
    data: Schema.Struct({ _tag: Schema.String, message: Schema.String, retryAfterSeconds: Schema.Int })
  })
}))
const rpcError = (answer: RawAnswer) => Schema.decodeUnknown(RpcError)(answer.text).pipe(Effect.orDie)

const server = limitedServer({ BREIN_RATE_LIMIT_KEY: "8/60s" })

layer(server.layer, { excludeTestServices: true })("rate limits on /mcp", (it) => {
  it.effect("a key over its limit gets a JSON-RPC error (429, Retry-After) with the request's id and the typed error in data; the real client surfaces it", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("mcp-limited", "free")
      const client = yield* connect("legacy", bearer(key))
      let refusal = ""
      for (let i = 0; i < 10 && refusal === ""; i++) {
        refusal = yield* callTool(client, "echo.message.reflect", { message: "hi" }).pipe(
          Effect.as(""),
          Effect.catchAllDefect((error) => Effect.succeed(error instanceof Error ? error.message : String(error)))
        )
      }
      assert.include(refusal, "RateLimited")
      assert.include(refusal, "-32029")

      const headers = { ...json, ...bearer(key) }
      for (const [id, sent] of [[7, call(7)], ["req-8", call("req-8")], [null, `[${call(9)}]`], [null, "{not json"]] as const) {
        const answer = yield* raw({ method: "POST", path: "/mcp", headers, body: sent })
        assert.strictEqual(answer.status, 429)
        const body = yield* rpcError(answer)
        assert.strictEqual(body.id, id, sent)
        assert.strictEqual(body.error.code, -32029)
        assert.strictEqual(body.error.data._tag, "RateLimited")
        assert.strictEqual(body.error.message, body.error.data.message)
        assert.match(body.error.message, /^this API key sent more than 8 requests in 60 s; retry in \d+ s$/)
        assert.strictEqual(answer.headers["retry-after"], String(body.error.data.retryAfterSeconds))
      }
      const bodiless = yield* raw({ method: "POST", path: "/mcp", headers })
      assert.strictEqual(bodiless.status, 429)
      assert.strictEqual((yield* rpcError(bodiless)).id, null)

      const other = yield* connect("modern", bearer(yield* issueKey("mcp-other", "free")))
      assert.notStrictEqual((yield* callTool(other, "echo.message.reflect", { message: "hi" })).isError, true, "another key is unaffected")

      yield* server.skip("180 seconds")
      assert.notStrictEqual((yield* callTool(client, "echo.message.reflect", { message: "again" })).isError, true, "the window has slid")
    }).pipe(Effect.scoped))
})
