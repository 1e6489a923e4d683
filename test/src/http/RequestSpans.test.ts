import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Tracer } from "effect"
import { issueKey, McpTest } from "../mcp/McpTestServer.ts"
import { raw } from "../mcp/RawHttp.ts"

const spans: Array<Tracer.Span> = []

/** Effect's own tracer (no exporter), keeping every span it makes. */
const Collecting = Layer.unwrapEffect(Effect.map(Effect.tracer, (native) =>
  Layer.setTracer(Tracer.make({
    span: (...args) => {
      const span = native.span(...args)
      spans.push(span)
      return span
    },
    context: native.context
  }))))

const ancestors = (span: Tracer.AnySpan): ReadonlyArray<Tracer.AnySpan> =>
  span._tag === "Span" ? Option.match(span.parent, { onNone: () => [], onSome: (parent) => [parent, ...ancestors(parent)] }) : []

/** The call's Executor.call span and the request span it sits under. */
const callUnder = (requestSpan: string) => {
  const request = spans.filter((span) => span.name === requestSpan)
  const call = spans.find((span) => span.name === "Executor.call" && ancestors(span).some((a) => request.includes(a as Tracer.Span)))
  return { request, call }
}

layer(McpTest.pipe(Layer.provide(Collecting)), { excludeTestServices: true })("request spans on the Node bridge", (it) => {
  it.effect("an HTTP execute is a root http.server span with the executor's spans below it", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("spans-http", "free")
      const answer = yield* raw({
        method: "POST",
        path: "/api/v1/tools/core.timestamp.now/execute",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: "{}"
      })
      assert.strictEqual(answer.status, 200, answer.text)
      const { request, call } = callUnder("http.server POST /api/v1/tools/{id}/execute")
      assert.strictEqual(request.length, 1)
      const [span] = request
      assert.isTrue(span !== undefined && Option.isNone(span.parent), "the request span is a root")
      assert.strictEqual(span?.attributes.get("http.response.status_code"), 200)
      assert.isDefined(call, "Executor.call sits below the request span")
    }))

  it.effect("an MCP tools/call is a root http.server span with the executor's spans below it", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("spans-mcp", "free")
      const answer = yield* raw({
        method: "POST",
        path: "/mcp",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${key}` },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "echo.message.reflect", arguments: { message: "hi" } }
        })
      })
      assert.strictEqual(answer.status, 200, answer.text)
      const { request, call } = callUnder("http.server POST /mcp")
      assert.isAtLeast(request.length, 1)
      assert.isDefined(call, "Executor.call sits below the /mcp request span")
    }))
})
