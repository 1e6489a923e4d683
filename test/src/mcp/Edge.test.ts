import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { MAX_DEPTH } from "../../../schema/Depth.ts"
import { issueKey, McpTest } from "./McpTestServer.ts"
import { raw, type RawAnswer } from "./RawHttp.ts"

const ErrorBody = Schema.parseJson(Schema.Struct(
  { _tag: Schema.String, message: Schema.String, issues: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))) },
  { key: Schema.String, value: Schema.Unknown }
))
const errorBody = (answer: RawAnswer) => Schema.decodeUnknown(ErrorBody)(answer.text)

const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }

/** The JSON-RPC message of an /mcp answer, sent as JSON or as one event. */
export const rpcOf = (answer: RawAnswer) => {
  const data = answer.text.split("\n").find((line) => line.startsWith("data: "))
  return JSON.parse(data === undefined ? answer.text : data.slice(6)) as {
    readonly error?: { readonly code: number; readonly message: string; readonly data?: Record<string, unknown> }
    readonly result?: { readonly isError?: boolean; readonly content: ReadonlyArray<{ readonly text: string }> }
  }
}

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

layer(McpTest, { excludeTestServices: true })("the edge refuses malformed ids and input before the executor", (it) => {
  it.effect("a tool id that is not a tool id's shape is a 404 (REST) or -32602 (MCP), bounded and escaped, and leaves no audit row", () =>
    Effect.gen(function*() {
      const key = yield* issueKey("edge-ids", "free")
      const before = yield* auditRows
      // Node itself answers 431 to a URL past its header limit (16 KiB): the longest path id is below it
      const huge = "a".repeat(900_000)
      for (const id of ["x%00", "x%0Ay", "Core.Timestamp.Now", "core..now", encodeURIComponent("é"), "a".repeat(10_000)]) {
        const answer = yield* execute(key, id, `{"input":{}}`)
        assert.strictEqual(answer.status, 404, id.slice(0, 20))
        const body = yield* errorBody(answer)
        // past 100 characters the router itself finds no route
        assert.strictEqual(body._tag, id.length > 100 ? "RouteNotFound" : "ToolNotFound")
        assert.isBelow(answer.text.length, 600, "a bounded message")
        assert.notInclude(answer.text, "\u0000")
        const got = yield* raw({ method: "GET", path: `/api/v1/tools/${id}`, headers: { authorization: `Bearer ${key}` } })
        assert.strictEqual(got.status, 404)
      }
      for (const name of ["x\u0000", "x\ny", huge, "core.timestamp.now\u0000"]) {
        const rpc = rpcOf(yield* toolsCall(key, name, {}))
        assert.strictEqual(rpc.error?.code, -32602, name.slice(0, 20))
        assert.isBelow(JSON.stringify(rpc).length, 600)
      }
      assert.strictEqual(yield* auditRows, before, "nothing of a malformed id reached the audit log")
      assert.strictEqual(rpcOf(yield* toolsCall(key, "core.timestamp.now", {})).result?.isError, undefined, "a well-formed id still runs")
    }))

  it.effect("a connection id in a path that is not one is a typed 404, never an empty 500", () =>
    Effect.gen(function*() {
      const key = yield* issueKey("edge-conns", "paid")
      for (const method of ["GET", "DELETE"]) {
        for (const id of ["conn_x%00", "conn_x%0A", `conn_${"a".repeat(10_000)}`, "nope"]) {
          const answer = yield* raw({ method, path: `/api/v1/connections/${id}`, headers: { authorization: `Bearer ${key}` } })
          assert.strictEqual(answer.status, 404, `${method} ${id.slice(0, 20)}`)
          assert.strictEqual((yield* errorBody(answer))._tag, id.length > 100 ? "RouteNotFound" : "ConnectionNotFound")
          assert.isBelow(answer.text.length, 600)
        }
      }
      const jobs = yield* raw({ method: "GET", path: "/api/v1/connections/conn_x%00/jobs", headers: { authorization: `Bearer ${key}` } })
      assert.strictEqual(jobs.status, 404)
      const header = yield* raw({
        method: "POST",
        path: "/api/v1/tools/core.timestamp.now/execute",
        headers: { ...json, authorization: `Bearer ${key}`, "x-connect-connection": `conn_${"a".repeat(5_000)}` },
        body: `{"input":{}}`
      })
      assert.strictEqual(header.status, 422, "an over-long X-Connect-Connection is refused")
    }))

  it.effect(`input nested deeper than ${MAX_DEPTH} levels is a typed 422 with the path to the deep point, on REST and MCP, and no audit row`, () =>
    Effect.gen(function*() {
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
      assert.strictEqual(yield* auditRows, before, "refused before the executor")
      const unclosed = yield* execute(key, "echo.message.reflect", "[".repeat(500_000))
      assert.oneOf(unclosed.status, [400, 422])
      assert.oneOf((yield* errorBody(unclosed))._tag, ["BadRequest", "InvalidInput"])
      const ok = yield* execute(key, "echo.message.reflect", `{"input":{"message":"hi"}}`)
      assert.strictEqual(ok.status, 200, "a shallow input still runs")
    }))
})
