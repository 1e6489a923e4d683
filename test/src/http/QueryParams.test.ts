import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { issueKey, McpTest } from "../mcp/McpTestServer.ts"
import { raw } from "../mcp/RawHttp.ts"

const Refusal = Schema.parseJson(Schema.Struct({
  _tag: Schema.String,
  message: Schema.String,
  issues: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))),
  hint: Schema.optional(Schema.String)
}))
const decodeRefusal = Schema.decodeUnknown(Refusal)

const NOT_TAKEN = "is not a query parameter this route takes"
const MCP_BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })

/** Each route with a parameter it does not take, and what the refusal's hint says the route takes. */
const misspelt = [
  ["GET", "/api/v1/usage?recnet=5", "recnet", "Did you mean recent (not recnet)? GET /api/v1/usage takes the query parameter recent."],
  [
    "GET",
    "/api/v1/connections/conn_none/jobs?limt=10",
    "limt",
    "Did you mean limit (not limt)? GET /api/v1/connections/{id}/jobs takes the query parameter limit."
  ],
  [
    "GET",
    "/api/v1/sessions/ses_none/events?afetr=3",
    "afetr",
    "Did you mean after (not afetr)? GET /api/v1/sessions/{id}/events takes the query parameter after."
  ],
  ["GET", "/auth/sign-in?tokne=abc", "tokne", "Did you mean token (not tokne)? GET /auth/sign-in takes the query parameter token."],
  ["GET", "/api/v1/tools?limit=5", "limit", "GET /api/v1/tools takes no query parameters."],
  ["GET", "/api/v1/tools/core.timestamp.now?verbose=1", "verbose", "GET /api/v1/tools/{id} takes no query parameters."],
  ["GET", "/api/v1/connections?limit=5", "limit", "GET /api/v1/connections takes no query parameters."],
  ["GET", "/api/v1/me?x=1", "x", "GET /api/v1/me takes no query parameters."],
  ["GET", "/openapi.json?v=2", "v", "GET /openapi.json takes no query parameters."],
  ["POST", "/api/v1/tools/core.timestamp.now/execute?dry_run=1", "dry_run", "POST /api/v1/tools/{id}/execute takes no query parameters."],
  ["POST", "/api/v1/sessions?stage=buscando", "stage", "POST /api/v1/sessions takes no query parameters."],
  ["POST", "/mcp?session=1", "session", "POST /mcp takes no query parameters."]
] as const

layer(McpTest, { excludeTestServices: true })("query parameters", (it) => {
  it.effect("a parameter a route does not take is 422 InvalidInput naming it, with what the route takes", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("query-params", "free")
      const headers = {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream"
      }
      for (const [method, path, name, hint] of misspelt) {
        const body = method === "POST" ? (path.startsWith("/mcp") ? MCP_BODY : "{}") : undefined
        const answer = yield* raw({ method, path, headers, ...(body === undefined ? {} : { body }) })
        assert.strictEqual(answer.status, 422, `${method} ${path}`)
        assert.deepStrictEqual(yield* decodeRefusal(answer.text), {
          _tag: "InvalidInput",
          message: `${name} ${NOT_TAKEN}`,
          issues: [{ path: name, message: NOT_TAKEN }],
          hint
        }, `${method} ${path}`)
      }
      const head = yield* raw({ method: "HEAD", path: "/api/v1/usage?recnet=5", headers })
      assert.strictEqual(head.status, 422, "HEAD is refused as GET is")
    }))

  it.effect("many unknown parameters are counted, the first 20 named, and no near name is guessed", () =>
    Effect.gen(function* () {
      const query = Array.from({ length: 30 }, (_, i) => `p${i}=1`).join("&")
      const answer = yield* raw({ method: "GET", path: `/api/v1/usage?recent=1&${query}&p0=2` })
      assert.strictEqual(answer.status, 422)
      const refusal = yield* decodeRefusal(answer.text)
      assert.lengthOf(refusal.issues ?? [], 20)
      assert.strictEqual(refusal.issues?.[0]?.path, "p0")
      assert.match(refusal.message, /^p0 is not a query parameter this route takes; .*; and 27 more$/)
      assert.strictEqual(refusal.hint, "GET /api/v1/usage takes the query parameter recent.")
    }))

  it.effect("the parameters a route takes still work, an unsubscribe link and /health take any, and an unknown route is still 404", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("query-params-ok", "free")
      const headers = { authorization: `Bearer ${key}` }
      assert.strictEqual((yield* raw({ method: "GET", path: "/api/v1/usage?recent=5", headers })).status, 200)
      assert.strictEqual((yield* raw({ method: "GET", path: "/api/v1/tools?", headers })).status, 200, "an empty query names nothing")
      const jobs = yield* decodeRefusal((yield* raw({ method: "GET", path: "/api/v1/connections/conn_none/jobs?limit=10", headers })).text)
      assert.notStrictEqual(jobs._tag, "InvalidInput")
      const events = yield* raw({ method: "GET", path: "/api/v1/sessions/ses_none/events?after=3", headers })
      assert.notStrictEqual((yield* decodeRefusal(events.text))._tag, "InvalidInput")
      const signIn = yield* decodeRefusal((yield* raw({ method: "GET", path: `/auth/sign-in?token=${"x".repeat(43)}` })).text)
      assert.strictEqual(signIn._tag, "SignInLinkRefused")
      const link = yield* raw({ method: "GET", path: "/u/seq_none/per_none/token?utm_source=mail" })
      assert.strictEqual(link.status, 404, "an unknown link's page, not a refusal of its query")
      assert.include(link.headers["content-type"] ?? "", "text/html")
      assert.strictEqual((yield* raw({ method: "GET", path: "/health?ts=1796672019354" })).status, 200, "a monitor's cache-buster")
      assert.strictEqual((yield* raw({ method: "GET", path: "/nothing/here?x=1" })).status, 404)
    }))
})
