import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Schema } from "effect"
import { issueKey, McpTest } from "./McpTestServer.ts"
import { raw, type RawAnswer } from "./RawHttp.ts"

const ALLOWED = "https://app.example.com, brein.example.com"
const GatedTest = McpTest.pipe(
  Layer.provide(Layer.setConfigProvider(
    ConfigProvider.fromMap(new Map([["BREIN_ALLOWED_ORIGINS", ALLOWED]])).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
  ))
)

const ErrorBody = Schema.parseJson(
  Schema.Struct({ _tag: Schema.String, message: Schema.String }, { key: Schema.String, value: Schema.Unknown })
)
const errorBody = (answer: RawAnswer) => Schema.decodeUnknown(ErrorBody)(answer.text)

const MIB = 1024 * 1024
const REST = "/api/v1/tools/echo.message.reflect/execute"
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
})
const reflect = (message: string) => JSON.stringify({ input: { message } })
const rpcReflect = (message: string) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo.message.reflect", arguments: { message } } })

layer(GatedTest, { excludeTestServices: true })("one gate for REST and /mcp", (it) => {
  it.effect("a bad key, a body that is not JSON and a body over 1 MiB (declared or chunked) are refused alike on both", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("gated", "free")
      const auth = { authorization: `Bearer ${key}` }
      const big = "x".repeat(MIB + 10)
      const cases = [
        { name: "no key", headers: json, rest: reflect("hi"), mcp: rpcReflect("hi"), status: 401, tag: "Unauthorized" },
        {
          name: "unknown key",
          headers: { ...json, authorization: "Bearer brein_sk_nope" },
          rest: reflect("hi"),
          mcp: rpcReflect("hi"),
          status: 401,
          tag: "Unauthorized"
        },
        {
          name: "text/plain",
          headers: { ...auth, "content-type": "text/plain", accept: json.accept },
          rest: "hi",
          mcp: "hi",
          status: 415,
          tag: "UnsupportedMediaType"
        },
        {
          name: "no content type",
          headers: { ...auth, accept: json.accept },
          rest: reflect("hi"),
          mcp: rpcReflect("hi"),
          status: 415,
          tag: "UnsupportedMediaType"
        },
        {
          name: "declared too large",
          headers: { ...json, ...auth },
          rest: reflect(big),
          mcp: rpcReflect(big),
          status: 413,
          tag: "PayloadTooLarge"
        },
        {
          name: "chunked too large",
          headers: { ...json, ...auth },
          rest: reflect(big),
          mcp: rpcReflect(big),
          status: 413,
          tag: "PayloadTooLarge",
          chunked: true
        }
      ]
      for (const c of cases) {
        const rest = yield* raw({ method: "POST", path: REST, headers: c.headers, body: c.rest, chunked: c.chunked === true })
        const mcp = yield* raw({ method: "POST", path: "/mcp", headers: c.headers, body: c.mcp, chunked: c.chunked === true })
        for (const [surface, answer] of [["REST", rest], ["MCP", mcp]] as const) {
          assert.strictEqual(answer.status, c.status, `${c.name} on ${surface}`)
          assert.include(String(answer.headers["content-type"]), "application/json", `${c.name} on ${surface}`)
          assert.strictEqual((yield* errorBody(answer))._tag, c.tag, `${c.name} on ${surface}`)
        }
        assert.deepStrictEqual(JSON.parse(rest.text), JSON.parse(mcp.text), `${c.name}: the same body on both`)
      }
      const unsupported = yield* errorBody(
        yield* raw({ method: "POST", path: REST, headers: { ...auth, "content-type": "text/plain" }, body: "hi" })
      )
      assert.strictEqual(unsupported.message, "the request body must be JSON: send it with Content-Type: application/json, not text/plain")
      const unauthorized = yield* errorBody(yield* raw({ method: "POST", path: "/mcp", headers: json, body: initialize }))
      assert.include(String(unauthorized["hint"]), "brein keys create")
    }))

  it.effect("a body declared in another charset than UTF-8 is refused on both, not read as UTF-8; UTF-8 however written passes", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("charsets", "free")
      const headers = (type: string) => ({ ...json, authorization: `Bearer ${key}`, "content-type": type })
      for (
        const [type, charset] of [["application/json; charset=latin1", "latin1"], ["application/json;charset=\"ISO-8859-1\"", "ISO-8859-1"]]
      ) {
        const rest = yield* raw({ method: "POST", path: REST, headers: headers(type), body: reflect("Muñoz") })
        const mcp = yield* raw({ method: "POST", path: "/mcp", headers: headers(type), body: rpcReflect("Muñoz") })
        for (const [surface, answer] of [["REST", rest], ["MCP", mcp]] as const) {
          assert.strictEqual(answer.status, 415, `${type} on ${surface}`)
          assert.deepStrictEqual(yield* errorBody(answer), {
            _tag: "UnsupportedMediaType",
            message: `the request body must be UTF-8 (charset=utf-8, or no charset), not charset="${charset}"`
          })
        }
      }
      for (const type of ["application/json; charset=utf-8", "application/json; charset=\"UTF-8\"", "application/json;charset=US-ASCII"]) {
        const answer = yield* raw({ method: "POST", path: REST, headers: headers(type), body: reflect("Muñoz") })
        assert.strictEqual(answer.status, 200, `${type}: ${answer.text}`)
        assert.include(answer.text, "Muñoz", type)
      }
    }))

  it.effect("/mcp refuses a foreign Origin or Host (403) unless BREIN_ALLOWED_ORIGINS lists it; localhost and no Origin pass", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("origins", "free")
      const post = (headers: Record<string, string>) =>
        raw({ method: "POST", path: "/mcp", headers: { ...json, authorization: `Bearer ${key}`, ...headers }, body: initialize })
      for (
        const headers of [{ origin: "https://evil.example" }, { origin: "null" }, { host: "evil.example" }, { host: "evil.example:8787" }, {
          origin: "https://app.example.com.evil.example"
        }]
      ) {
        const answer = yield* post(headers)
        assert.strictEqual(answer.status, 403, JSON.stringify(headers))
        assert.deepInclude(yield* errorBody(answer), { _tag: "Forbidden", reason: "origin_not_allowed" })
      }
      for (
        const headers of [
          {},
          { origin: "http://localhost:6274" },
          { origin: "http://127.0.0.1:3000" },
          { origin: "http://[::1]:3000" },
          { origin: "https://app.example.com" },
          { host: "brein.example.com" },
          { host: "localhost:9" }
        ]
      ) {
        assert.strictEqual((yield* post(headers)).status, 200, JSON.stringify(headers))
      }
    }))

  it.effect("an unknown route is a JSON 404 and a known route with another method a JSON 405 naming the allowed ones", () =>
    Effect.gen(function* () {
      const missing = yield* raw({ method: "GET", path: "/api/v1/nope" })
      assert.strictEqual(missing.status, 404)
      assert.deepInclude(yield* errorBody(missing), { _tag: "RouteNotFound", message: "no route GET /api/v1/nope" })
      const wrong = yield* raw({ method: "DELETE", path: "/api/v1/tools" })
      assert.strictEqual(wrong.status, 405)
      assert.strictEqual(wrong.headers["allow"], "GET, HEAD")
      assert.deepInclude(yield* errorBody(wrong), { _tag: "MethodNotAllowed", allowed: ["GET", "HEAD"] })
      // HEAD is answered where GET is, as the header says
      const head = yield* raw({ method: "HEAD", path: "/api/v1/tools" })
      assert.strictEqual(head.status, 200)
      const put = yield* raw({ method: "PUT", path: "/api/v1/tools/echo.message.reflect/execute" })
      assert.deepInclude(yield* errorBody(put), { _tag: "MethodNotAllowed", allowed: ["POST"] })
      for (const method of ["GET", "DELETE"]) {
        const mcp = yield* raw({ method, path: "/mcp", headers: { accept: "application/json, text/event-stream" } })
        assert.strictEqual(mcp.status, 405, method)
        assert.strictEqual(mcp.headers["allow"], "POST")
        assert.deepInclude(yield* errorBody(mcp), { _tag: "MethodNotAllowed", allowed: ["POST"] })
      }
    }))
})
