import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_PATH_PARAM } from "../../../schema/Ids.ts"
import { issueKey, McpTest } from "../mcp/McpTestServer.ts"
import { raw, type RawRequest } from "../mcp/RawHttp.ts"
import expected from "./ExecuteRefusals.json" with { type: "json" }

const MIB = 1024 * 1024
const EXECUTE = "/api/v1/tools/core.timestamp.now/execute"
const json = { "content-type": "application/json" }
const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

/** What a client sees: status, the headers the contract speaks of (those sent), and the body. */
const seen = (request: RawRequest) =>
  Effect.map(raw(request), (answer): Record<string, unknown> =>
    JSON.parse(JSON.stringify({
      status: answer.status,
      contentType: answer.headers["content-type"],
      retryAfter: answer.headers["retry-after"],
      wwwAuthenticate: answer.headers["www-authenticate"],
      connection: answer.headers["connection"],
      body: answer.text === "" ? "" : JSON.parse(answer.text) as unknown
    })))

const cases = (key: string) => {
  const auth = { ...json, authorization: `Bearer ${key}` }
  return {
    malformedJson: { method: "POST", path: EXECUTE, headers: auth, body: "{\"input\":" },
    emptyBody: { method: "POST", path: EXECUTE, headers: auth, body: "" },
    notAnObject: { method: "POST", path: EXECUTE, headers: auth, body: "[1,2]" },
    nullBody: { method: "POST", path: EXECUTE, headers: auth, body: "null" },
    wrongContentType: { method: "POST", path: EXECUTE, headers: { ...auth, "content-type": "text/plain" }, body: "{}" },
    noContentType: { method: "POST", path: EXECUTE, headers: { authorization: auth.authorization }, body: "{}" },
    tooLarge: { method: "POST", path: EXECUTE, headers: auth, body: JSON.stringify({ input: { x: "x".repeat(MIB) } }) },
    chunkedTooLarge: {
      method: "POST",
      path: EXECUTE,
      headers: auth,
      body: JSON.stringify({ input: { x: "x".repeat(MIB) } }),
      chunked: true
    },
    chunkedTooLargeNoKey: {
      method: "POST",
      path: EXECUTE,
      headers: json,
      body: JSON.stringify({ input: { x: "x".repeat(MIB) } }),
      chunked: true
    },
    missingKey: { method: "POST", path: EXECUTE, headers: json, body: "{}" },
    unknownKey: { method: "POST", path: EXECUTE, headers: { ...json, authorization: "Bearer brein_sk_nope" }, body: "{}" },
    malformedKey: { method: "POST", path: EXECUTE, headers: { ...json, authorization: "Basic abc" }, body: "{}" },
    missingKeyMalformedJson: { method: "POST", path: EXECUTE, headers: json, body: "{\"input\":" },
    badId: { method: "POST", path: "/api/v1/tools/Not-A-Tool!/execute", headers: auth, body: "{}" },
    unknownId: { method: "POST", path: "/api/v1/tools/core.nothing.here/execute", headers: auth, body: "{}" },
    longId: { method: "POST", path: `/api/v1/tools/${"a".repeat(MAX_PATH_PARAM + 1)}/execute`, headers: auth, body: "{}" },
    deepInput: { method: "POST", path: EXECUTE, headers: auth, body: `{"input":{"a":${deep(100)}}}` },
    badInput: { method: "POST", path: EXECUTE, headers: auth, body: "{\"input\":{\"timezone\":42}}" },
    misspeltInput: { method: "POST", path: EXECUTE, headers: auth, body: "{\"inptu\":{\"timezone\":\"UTC\"}}" },
    badConnection: {
      method: "POST",
      path: "/api/v1/tools/vault.item.get/execute",
      headers: { ...auth, "x-connect-connection": "nope" },
      body: "{}"
    },
    getExecute: { method: "GET", path: EXECUTE, headers: { authorization: auth.authorization } },
    withQuery: { method: "POST", path: `${EXECUTE}?x=1`, headers: auth, body: "{\"input\":{\"timezone\":42}}" }
  } satisfies Record<string, RawRequest>
}

/**
 * Every refusal of the execute route as the HttpApi endpoint wrote it before the route moved to the
 * Node bridge (recorded from it), but for the 401s, which now carry WWW-Authenticate as /mcp's do,
 * and a body's unknown field, which now says where the tool's fields go (as the HttpApi route does).
 */
layer(McpTest, { excludeTestServices: true })("bad input at POST /api/v1/tools/{id}/execute", (it) => {
  it.effect("answers each bad request with the HttpApi route's status, headers and typed body", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("bridge", "free")
      for (const [name, request] of Object.entries(cases(key))) {
        assert.deepStrictEqual<unknown>(yield* seen(request), expected[name as keyof typeof expected], name)
      }
    }))

  it.effect("a path that is not valid percent-encoding is a 404 that says so, not one about its length", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("bridge-encoding", "free")
      for (const path of ["/api/v1/tools/ab%ZZ", "/api/v1/tools/%E0", "/api/v1/connections/conn_%ZZ", "/api/v1/tools/a%ZZ/execute"]) {
        const answer = yield* seen({
          method: path.endsWith("/execute") ? "POST" : "GET",
          path,
          headers: { ...json, authorization: `Bearer ${key}` },
          body: "{}"
        })
        assert.strictEqual(answer.status, 404, path)
        assert.deepInclude(answer.body, { _tag: "RouteNotFound" }, path)
        assert.include(JSON.stringify(answer.body), "not valid percent-encoding", path)
      }
    }))

  it.effect("a field beside the input, however deep, is refused by name without being walked", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("bridge-deep", "free")
      const answer = yield* seen({
        method: "POST",
        path: EXECUTE,
        headers: { ...json, authorization: `Bearer ${key}` },
        body: `{"input":{},"other":${deep(5000)}}`
      })
      assert.strictEqual(answer.status, 422)
      assert.deepStrictEqual(answer.body, expected.unexpectedField.body)
    }))

  it.effect("a body that is an array, however deep, is refused as no object, as a shallow one is, not answered 500", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("bridge-deep-array", "free")
      for (const depth of [65, 3_000, 10_000]) {
        const answer = yield* seen({
          method: "POST",
          path: EXECUTE,
          headers: { ...json, authorization: `Bearer ${key}` },
          body: deep(depth)
        })
        assert.deepStrictEqual<unknown>(answer, expected.notAnObject, String(depth))
      }
    }))

  it.effect("a body with the tool's fields beside input is told where they go, on the bridge and on the HttpApi route alike", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("bridge-arguments", "free")
      const headers = { ...json, authorization: `Bearer ${key}` }
      const body = "{\"arguments\":{\"timezone\":\"UTC\"}}"
      // a percent-encoded id is left to the HttpApi app, which decodes the body first
      for (const path of [EXECUTE, "/api/v1/tools/core%2Etimestamp%2Enow/execute"]) {
        const answer = yield* seen({ method: "POST", path, headers, body })
        assert.strictEqual(answer["status"], 422, path)
        assert.deepStrictEqual(answer["body"], {
          message: "arguments is not a field this input accepts",
          issues: [{ path: "arguments", message: "is not a field this input accepts" }],
          hint: "The body is {\"input\": {…}}: the tool's fields go inside \"input\".",
          _tag: "InvalidInput"
        }, path)
      }
    }))
})
