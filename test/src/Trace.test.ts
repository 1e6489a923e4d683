import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { waitUntil } from "../support/Eventually.ts"
import {
  clearSpans,
  descendants,
  finishedSpans,
  render,
  type SpanNode,
  type SpanRecord,
  spansNamed,
  SpansTest,
  treeOf
} from "../support/Spans.ts"
import { bearer, callTool, connect, issueKey, listTools, McpTest, mcpUrl } from "./mcp/McpTestServer.ts"

/** The executor's steps, in the order a call runs them. */
const STEPS = [
  "Executor.resolve",
  "Executor.decode",
  "Executor.authorize",
  "Executor.budget",
  "Executor.run",
  "Executor.envelope",
  "Executor.audit"
]

const TraceTest = McpTest.pipe(Layer.provideMerge(SpansTest))

const Meta = Schema.Struct({ meta: Schema.Struct({ request_id: Schema.String }) })
const requestIdOf = (body: unknown) => Schema.decodeUnknown(Meta)(body).pipe(Effect.map((decoded) => decoded.meta.request_id), Effect.orDie)

/** POST /api/v1/tools/core.timestamp.now/execute from a plain client (it sends no trace context); answers the request id. */
const execute = (key: string) =>
  Effect.flatMap(mcpUrl, (url) =>
    Effect.promise(async (): Promise<unknown> => {
      const response = await fetch(new URL("/api/v1/tools/core.timestamp.now/execute", url), {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: JSON.stringify({ input: { timezone: "America/Santiago" } })
      })
      return response.json()
    })).pipe(Effect.flatMap(requestIdOf))

/** vault.item.get over MCP through a connection of the key's workspace; answers the request id. */
const connectedCall = (key: string, workspace: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const connection = `conn_${workspace.replaceAll("-", "")}`
    yield* sql`INSERT INTO connections (id, workspace_id, connector)
      SELECT ${connection}, id, 'vault' FROM workspaces WHERE name = ${workspace}`
    const client = yield* connect("legacy", bearer(key))
    yield* listTools(client)
    const result = yield* callTool(client, "vault.item.get", { item: "a", connection })
    return yield* requestIdOf(result.structuredContent)
  }).pipe(Effect.scoped)

/** The same tool over MCP with the real client; answers the request id. */
const mcpCall = (key: string) =>
  Effect.gen(function* () {
    const client = yield* connect("legacy", bearer(key))
    const result = yield* callTool(client, "core.timestamp.now", { timezone: "America/Santiago" })
    return yield* requestIdOf(result.structuredContent)
  }).pipe(Effect.scoped)

const isAuditInsert = (span: SpanRecord) =>
  span.name === "sql.execute" && /INSERT INTO "?audit_log/i.test(String(span.attributes["db.query.text"]))

/** The top of a span's trace as far as it was collected (its parent may be remote). */
const rootOf = (spans: ReadonlyArray<SpanRecord>, span: SpanRecord): SpanRecord => {
  const parent = spans.find((s) => s.spanId === span.parentId && s.traceId === span.traceId)
  return parent === undefined ? span : rootOf(spans, parent)
}

/** The one call's span (the collector was cleared before the call) and the tree of its whole trace. */
const traceOf = (spans: ReadonlyArray<SpanRecord>) =>
  Option.map(
    Option.fromNullable(spansNamed(spans, "Executor.call")[0]),
    (call) => ({ call: treeOf(spans, call), tree: treeOf(spans, rootOf(spans, call)) })
  )

/** Runs `call` with the collector emptied first; waits until its request span has finished too (it ends after the answer is sent). */
const traced = <E, R>(call: Effect.Effect<string, E, R>, requestSpan: string) =>
  Effect.gen(function* () {
    yield* clearSpans
    const requestId = yield* call
    const finished = (spans: ReadonlyArray<SpanRecord>) =>
      Option.exists(traceOf(spans), ({ tree }) => tree.name === requestSpan && descendants(tree).some(isAuditInsert))
    // the waiting reads a rendering, so a failure shows the tree that was collected
    yield* waitUntil(
      Effect.map(finishedSpans, (spans) => ({
        done: finished(spans),
        tree: Option.match(traceOf(spans), { onNone: () => "no Executor.call span", onSome: ({ tree }) => render(tree) })
      })),
      (seen) => seen.done,
      { what: `the trace of one call under "${requestSpan}" down to the audit INSERT`, tries: 80 }
    ).pipe(Effect.catchAllDefect(() => Effect.void)) // the assertions say what is missing
    const spans = yield* finishedSpans
    return { requestId, spans, trace: traceOf(spans) }
  })

/** request span → Executor.call → the seven steps in order → the audit INSERT under Executor.audit. */
const assertCallTree = (
  spans: ReadonlyArray<SpanRecord>,
  found: Option.Option<{ readonly call: SpanNode; readonly tree: SpanNode }>,
  requestSpan: string
) => {
  assert.isTrue(Option.isSome(found), "an Executor.call span was collected")
  if (Option.isNone(found)) return
  const { call, tree } = found.value
  const shown = render(tree)
  assert.strictEqual(tree.name, requestSpan, `the request span is the root of the call's trace:\n${shown}`)
  const under = new Set(descendants(call).map((s) => s.spanId))
  assert.deepStrictEqual(
    spans.filter((s) => under.has(s.spanId) && STEPS.includes(s.name)).map((s) => s.name),
    STEPS,
    `the steps run under Executor.call, each once, in order:\n${shown}`
  )
  const audit = descendants(call).find((s) => s.name === "Executor.audit")
  assert.isTrue(
    audit !== undefined && descendants(audit).some(isAuditInsert),
    `the audit row's INSERT runs under Executor.audit:\n${shown}`
  )
}

layer(TraceTest, { excludeTestServices: true })("the span tree of one call", (it) => {
  it.effect("the collector sees an execute's Executor.call span, named by its request, and its audit INSERT", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("trace-collector", "free")
      yield* clearSpans
      const requestId = yield* execute(key)
      const spans = yield* waitUntil(finishedSpans, (spans) => spansNamed(spans, "Executor.call").length > 0 && spans.some(isAuditInsert), {
        what: "the call's span and the audit INSERT"
      })
      const [call, ...others] = spansNamed(spans, "Executor.call")
      assert.strictEqual(others.length, 0)
      assert.deepInclude(call?.attributes, { toolId: "core.timestamp.now", requestId, surface: "http" })
    }))

  it.effect("HTTP execute: http.server POST /api/v1/tools/{id}/execute → Executor.call → each step → the audit INSERT", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("trace-http", "free")
      const requestSpan = "http.server POST /api/v1/tools/{id}/execute"
      const { requestId, spans, trace } = yield* traced(execute(key), requestSpan)
      assert.isTrue(Option.exists(trace, ({ call }) => call.attributes["requestId"] === requestId))
      assertCallTree(spans, trace, requestSpan)
    }))

  it.effect("MCP tools/call: http.server POST /mcp → Executor.call → each step → the audit INSERT", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("trace-mcp", "free")
      const requestSpan = "http.server POST /mcp"
      const { requestId, spans, trace } = yield* traced(mcpCall(key), requestSpan)
      assert.isTrue(Option.exists(trace, ({ call }) => call.attributes["requestId"] === requestId && call.attributes["surface"] === "mcp"))
      assertCallTree(spans, trace, requestSpan)
    }))

  it.effect("a call through a connection: its lookup runs under Executor.authorize; a call without one looks nothing up", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("trace-vault", "free")
      const requestSpan = "http.server POST /mcp"
      const { spans, trace } = yield* traced(connectedCall(key, "trace-vault"), requestSpan)
      assertCallTree(spans, trace, requestSpan)
      const authorize = Option.flatMap(
        trace,
        ({ call }) => Option.fromNullable(descendants(call).find((s) => s.name === "Executor.authorize"))
      )
      const shown = Option.match(trace, { onNone: () => "no trace", onSome: ({ tree }) => render(tree) })
      assert.isTrue(
        Option.exists(authorize, (node) => descendants(node).some((s) => s.name === "Authorize.connection")),
        `the connection lookup runs under Executor.authorize:\n${shown}`
      )

      const open = yield* traced(mcpCall(key), requestSpan)
      const openAuthorize = Option.flatMap(
        open.trace,
        ({ call }) => Option.fromNullable(descendants(call).find((s) => s.name === "Executor.authorize"))
      )
      assert.isTrue(
        Option.exists(openAuthorize, (node) => descendants(node).length === 0),
        "a call without a connection has nothing under Executor.authorize"
      )
    }))
})
