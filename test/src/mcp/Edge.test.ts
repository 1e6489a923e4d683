import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { servicesWith } from "../../../layers/App.ts"
import { MAX_DEPTH } from "../../../schema/Depth.ts"
import { MAX_PATH_PARAM, TOOL_ID_MAX } from "../../../schema/Ids.ts"
import { CoreConnector, EchoConnector } from "../../../services/connectors/Core.ts"
import { connector } from "../../../services/tools/Source.ts"
import { action } from "../../../services/tools/Tool.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issueKey, VaultConnector } from "./McpTestServer.ts"
import { raw, type RawAnswer, rpcOf } from "./RawHttp.ts"

/** A tool whose input names secrets: what a wrong value of them answers must not contain it. */
const LockerConnector = connector({
  id: "locker",
  label: "Locker",
  plan: "free",
  requiresConnection: false,
  tools: [
    action({
      id: "locker.door.open",
      family: "locker",
      label: "Abrir",
      description: "Opens a locker with its pin and token",
      plan: "free",
      hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      cost: { kind: "free" },
      level: 0,
      stages: [],
      input: Schema.Struct({ pin: Schema.String.pipe(Schema.pattern(/^\d{4}$/)), apiToken: Schema.Literal("t1", "t2") }),
      output: Schema.Struct({ open: Schema.Boolean }),
      handler: () => Effect.succeed({ open: true })
    })
  ]
})

const EdgeTest = serveOn(listen(0)).pipe(
  Layer.provideMerge(servicesWith([CoreConnector, EchoConnector, LockerConnector, VaultConnector])),
  Layer.provideMerge(TestDatabase)
)

const ErrorBody = Schema.parseJson(Schema.Struct(
  {
    _tag: Schema.String,
    message: Schema.String,
    issues: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String })))
  },
  { key: Schema.String, value: Schema.Unknown }
))
const errorBody = (answer: RawAnswer) => Schema.decodeUnknown(ErrorBody)(answer.text)

const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }

export const toolsCall = (key: string, name: string, args: unknown) =>
  raw({
    method: "POST",
    path: "/mcp",
    headers: { ...json, authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } })
  })

const execute = (key: string, id: string, body: string) =>
  raw({ method: "POST", path: `/api/v1/tools/${id}/execute`, headers: { ...json, authorization: `Bearer ${key}` }, body })

const auditRows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`).pipe(
  Effect.map(([row]) => row?.n ?? 0)
)

const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`

layer(EdgeTest, { excludeTestServices: true })("the edge refuses malformed ids and input before the executor", (it) => {
  it.effect("a tool id that is not a tool id's shape is a 404 (REST) or -32602 (MCP), bounded and escaped, and leaves no audit row", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("edge-ids", "free")
      const before = yield* auditRows
      // Node itself answers 431 to a URL past its header limit (16 KiB): the longest path id is below it
      const huge = "a".repeat(900_000)
      const tooLong = "a".repeat(MAX_PATH_PARAM + 1)
      for (const id of ["x%00", "x%0Ay", "Core.Timestamp.Now", "core..now", encodeURIComponent("é"), tooLong, "a".repeat(10_000)]) {
        const answer = yield* execute(key, id, `{"input":{}}`)
        assert.strictEqual(answer.status, 404, id.slice(0, 20))
        const body = yield* errorBody(answer)
        // past the longest id a path may hold, the router itself finds no route
        assert.strictEqual(body._tag, id.length > MAX_PATH_PARAM ? "RouteNotFound" : "ToolNotFound", id.slice(0, 20))
        assert.isBelow(answer.text.length, 600, "a bounded message")
        assert.notInclude(answer.text, "\u0000")
        const got = yield* raw({ method: "GET", path: `/api/v1/tools/${id}`, headers: { authorization: `Bearer ${key}` } })
        assert.strictEqual(got.status, 404)
        assert.strictEqual((yield* errorBody(got))._tag, id.length > MAX_PATH_PARAM ? "RouteNotFound" : "ToolNotFound")
      }
      for (const name of ["x\u0000", "x\ny", huge, "core.timestamp.now\u0000"]) {
        const rpc = rpcOf(yield* toolsCall(key, name, {}))
        assert.strictEqual(rpc.error?.code, -32602, name.slice(0, 20))
        assert.isBelow(JSON.stringify(rpc).length, 600)
      }
      assert.strictEqual(yield* auditRows, before, "nothing of a malformed id reached the audit log")
      assert.strictEqual(rpcOf(yield* toolsCall(key, "core.timestamp.now", {})).result?.isError, undefined, "a well-formed id still runs")
    }))

  it.effect("an id as long as a tool id may be reaches the tool's routes, which answer it as an unknown tool", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("edge-longest", "free")
      const longest = "a".repeat(TOOL_ID_MAX)
      const answer = yield* execute(key, longest, `{"input":{}}`)
      assert.strictEqual(answer.status, 404)
      assert.strictEqual((yield* errorBody(answer))._tag, "ToolNotFound", answer.text)
      const got = yield* raw({ method: "GET", path: `/api/v1/tools/${longest}`, headers: { authorization: `Bearer ${key}` } })
      assert.strictEqual(got.status, 404)
      assert.strictEqual((yield* errorBody(got))._tag, "ToolNotFound", got.text)
    }))

  it.effect("a connection id in a path that is not one is a typed 404, never an empty 500", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("edge-conns", "paid")
      for (const method of ["GET", "DELETE"]) {
        for (const id of ["conn_x%00", "conn_x%0A", `conn_${"a".repeat(10_000)}`, "nope", `conn_${"a".repeat(MAX_PATH_PARAM - 5)}`]) {
          const answer = yield* raw({ method, path: `/api/v1/connections/${id}`, headers: { authorization: `Bearer ${key}` } })
          assert.strictEqual(answer.status, 404, `${method} ${id.slice(0, 20)}`)
          assert.strictEqual((yield* errorBody(answer))._tag, id.length > MAX_PATH_PARAM ? "RouteNotFound" : "ConnectionNotFound")
          assert.isBelow(answer.text.length, 600)
        }
      }
      const jobs = yield* raw({ method: "GET", path: "/api/v1/connections/conn_x%00/jobs", headers: { authorization: `Bearer ${key}` } })
      assert.strictEqual(jobs.status, 404)
      const header = yield* raw({
        method: "POST",
        path: "/api/v1/tools/vault.item.get/execute",
        headers: { ...json, authorization: `Bearer ${key}`, "x-connect-connection": `conn_${"a".repeat(5_000)}` },
        body: `{"input":{"item":"a"}}`
      })
      assert.strictEqual(header.status, 422, "an over-long X-Connect-Connection is refused")
    }))

  it.effect(`input nested deeper than ${MAX_DEPTH} levels is a typed 422 with the path to the deep point, on REST and MCP, and no audit row`, () =>
    Effect.gen(function* () {
      const key = yield* issueKey("edge-depth", "free")
      const before = yield* auditRows
      for (const levels of [MAX_DEPTH + 1, 3_000, 100_000]) {
        const rest = yield* execute(key, "echo.message.reflect", `{"input":{"message":${nested(levels)}}}`)
        assert.strictEqual(rest.status, 422, `${levels} levels`)
        const body = yield* errorBody(rest)
        assert.strictEqual(body._tag, "InvalidInput")
        assert.match(body.issues?.[0]?.path ?? "", /^input\.message(\.0)+$/)
        assert.include(body.message, `deeper than ${MAX_DEPTH}`)
        const rpc = rpcOf(yield* toolsCall(key, "echo.message.reflect", { message: JSON.parse(nested(Math.min(levels, 3_000))) }))
        assert.isTrue(rpc.result?.isError, `${levels} levels over MCP`)
        assert.include(rpc.result?.content[0]?.text ?? "", "InvalidInput")
      }
      const deepRpc = yield* raw({
        method: "POST",
        path: "/mcp",
        headers: { ...json, authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-06-18" },
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo.message.reflect","arguments":{"message":${
          nested(100_000)
        }}}}`
      })
      assert.strictEqual(deepRpc.status, 200, "100,000 levels over MCP")
      assert.include(rpcOf(deepRpc).result?.content[0]?.text ?? "", "InvalidInput")
      assert.strictEqual(yield* auditRows, before, "refused before the executor")
      const credentials = yield* raw({
        method: "POST",
        path: "/api/v1/connections",
        headers: { ...json, authorization: `Bearer ${key}` },
        body: `{"connector":"sii","credentials":{"rut":"12345678-5","clave":${nested(100_000)}}}`
      })
      assert.oneOf(credentials.status, [400, 403, 422], "a deep body elsewhere is a typed refusal too")
      const unclosed = yield* execute(key, "echo.message.reflect", "[".repeat(500_000))
      assert.oneOf(unclosed.status, [400, 422])
      assert.oneOf((yield* errorBody(unclosed))._tag, ["BadRequest", "InvalidInput"])
      const ok = yield* execute(key, "echo.message.reflect", `{"input":{"message":"hi"}}`)
      assert.strictEqual(ok.status, 200, "a shallow input still runs")
    }))

  it.effect("a secret sent with the wrong type or shape is never echoed in a 422, over REST and MCP", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("edge-secrets", "paid")
      const headers = { ...json, authorization: `Bearer ${key}` }
      const bodies = [
        { connector: "sii", credentials: { rut: "12345678-5", clave: 918273645 } },
        { connector: "sii", credentials: { rut: "12345678-5", clave: ["hunter2-clave"] } },
        { connector: "sii", credentials: { rut: "12345678-5", clave: "" } },
        { connector: "sii", credentials: { rut: "12345678-5", clave: { value: "hunter2-clave" } }, password: 55512345 }
      ]
      for (const body of bodies) {
        const answer = yield* raw({ method: "POST", path: "/api/v1/connections", headers, body: JSON.stringify(body) })
        assert.strictEqual(answer.status, 422, JSON.stringify(body))
        for (const secret of ["918273645", "hunter2", "55512345"]) assert.notInclude(answer.text, secret)
      }
      const patched = yield* raw({
        method: "PATCH",
        path: "/api/v1/connections/conn_abc",
        headers,
        body: `{"credentials":{"rut":"12345678-5","clave":918273645}}`
      })
      assert.notInclude(patched.text, "918273645")
      const input = { pin: "12-hunter2", apiToken: "tok-55512345" }
      const rest = yield* execute(key, "locker.door.open", JSON.stringify({ input }))
      assert.strictEqual(rest.status, 422)
      const mcp = rpcOf(yield* toolsCall(key, "locker.door.open", input))
      assert.isTrue(mcp.result?.isError)
      for (const text of [rest.text, JSON.stringify(mcp)]) {
        for (const secret of ["hunter2", "55512345"]) assert.notInclude(text, secret)
        assert.include(text, "input.pin")
      }
    }))

  it.effect("a body with 60,000 unknown fields is refused by a count: a small 422, and /health answers meanwhile", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("edge-wide", "free")
      const wide = JSON.stringify({ input: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i])) })
      const [answers, health] = yield* Effect.all([
        Effect.all(Array.from({ length: 8 }, () => execute(key, "core.timestamp.now", wide)), { concurrency: "unbounded" }),
        raw({ method: "GET", path: "/health" })
      ], { concurrency: "unbounded" })
      assert.strictEqual(health.status, 200)
      for (const answer of answers) {
        assert.strictEqual(answer.status, 422)
        assert.isBelow(answer.text.length, 8 * 1024)
        const body = yield* errorBody(answer)
        assert.include(body.message, "and 59,997 more")
        assert.isAtMost(body.issues?.length ?? 0, 20)
      }
      const mcp = yield* toolsCall(key, "core.timestamp.now", JSON.parse(wide).input)
      assert.isBelow(mcp.text.length, 8 * 1024)
    }))

  it.effect("REST and MCP parse Authorization alike: Bearer (any case), one space, a b64token", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("edge-bearer", "free")
      const table: ReadonlyArray<readonly [string, boolean]> = [
        [`Bearer ${key}`, true],
        [`bearer ${key}`, true],
        [`BEARER ${key}`, true],
        [`Bearer  ${key}`, false],
        [`Bearer\t${key}`, false],
        [`Bearer ${key} extra`, false],
        [`Bearer ${key},x`, false],
        [`Basic ${key}`, false],
        [key, false],
        ["Bearer", false]
      ]
      for (const [authorization, accepted] of table) {
        const headers = { ...json, authorization, "mcp-protocol-version": "2025-06-18" }
        const rest = yield* raw({ method: "POST", path: "/api/v1/tools/core.timestamp.now/execute", headers, body: `{"input":{}}` })
        const mcp = yield* raw({
          method: "POST",
          path: "/mcp",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "core.timestamp.now", arguments: {} } })
        })
        assert.strictEqual(rest.status, accepted ? 200 : 401, `REST ${JSON.stringify(authorization.replace(key, "KEY"))}`)
        assert.strictEqual(mcp.status, accepted ? 200 : 401, `MCP ${JSON.stringify(authorization.replace(key, "KEY"))}`)
      }
    }))
  it.effect("a request whose params fail the protocol's schema is -32602 Invalid params, one line per issue, not -32603 with a dump", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("edge-params", "free")
      const rpc = (method: string, params: unknown) =>
        raw({
          method: "POST",
          path: "/mcp",
          headers: { ...json, authorization: `Bearer ${key}`, "mcp-protocol-version": "2025-06-18" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
        }).pipe(Effect.map(rpcOf))
      assert.deepStrictEqual((yield* rpc("initialize", { protocolVersion: 5 })).error, {
        code: -32602,
        message: "Invalid params for initialize: params.protocolVersion: expected string, received number; " +
          "params.capabilities: expected object, received undefined; params.clientInfo: expected object, received undefined"
      })
      assert.deepStrictEqual((yield* rpc("tools/list", { cursor: 5 })).error, {
        code: -32602,
        message: "Invalid params for tools/list: params.cursor: expected string, received number"
      })
      assert.deepStrictEqual((yield* rpc("tools/call", { name: 5 })).error, {
        code: -32602,
        message: "Invalid params for tools/call: params.name: expected string, received number"
      })
      const initialized = yield* rpc("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" }
      })
      assert.isUndefined(initialized.error, "well-formed params are answered as before")
    }))
})
