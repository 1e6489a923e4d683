import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Schema } from "effect"
import { createServer } from "node:http"
import { TracingLive } from "../../layers/Tracing.ts"
import { waitUntil } from "../support/Eventually.ts"

const Attribute = Schema.Struct({ key: Schema.String, value: Schema.Struct({ stringValue: Schema.optional(Schema.String) }) })
const ExportedSpan = Schema.Struct({
  traceId: Schema.String,
  spanId: Schema.String,
  parentSpanId: Schema.optional(Schema.String),
  name: Schema.String
})
const TracesBody = Schema.Struct({
  resourceSpans: Schema.Array(Schema.Struct({
    resource: Schema.Struct({ attributes: Schema.Array(Attribute) }),
    scopeSpans: Schema.Array(Schema.Struct({ spans: Schema.Array(ExportedSpan) }))
  }))
})
const decodeBody = Schema.decodeUnknown(Schema.parseJson(TracesBody))

interface Received {
  readonly path: string
  readonly contentType: string
  readonly body: string
}

/** A collector on a free local port that keeps every POST it receives. */
const collector = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly received: Array<Received>; readonly close: () => void }>((resume) => {
    const received: Array<Received> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received.push({
          path: request.url ?? "",
          contentType: request.headers["content-type"] ?? "",
          body: Buffer.concat(chunks).toString("utf8")
        })
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, received, close: () => void server.close() }))
    })
  }),
  (server) => Effect.sync(server.close)
)

const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

/** Two nested spans run under the tracing layer; the layer's scope closes (and flushes) before this answers. */
const traced = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const inner = yield* Effect.currentSpan.pipe(Effect.withSpan("Demo.inner"), Effect.orDie)
    const tracer = yield* Effect.tracer
    return { traceId: inner.traceId, tracer }
  }).pipe(Effect.withSpan("Demo.outer"), Effect.provide(TracingLive), withEnv(env))

const spansOf = (received: ReadonlyArray<Received>) =>
  Effect.map(
    Effect.forEach(received, (r) => decodeBody(r.body)),
    (bodies) =>
      bodies.flatMap((b) =>
        b.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, resource: r.resource }))))
      )
  )

describe("Tracing", () => {
  it.live("with OTEL_EXPORTER_OTLP_ENDPOINT set, spans reach the collector in OTLP/JSON under the service name, with their trace id", () =>
    Effect.gen(function* () {
      const server = yield* collector
      const { traceId } = yield* traced({ OTEL_EXPORTER_OTLP_ENDPOINT: `${server.url}/`, OTEL_SERVICE_NAME: "brein-test" })
      const received = yield* waitUntil(Effect.sync(() => [...server.received]), (r) => r.length > 0, { what: "an OTLP export" })
      assert.deepStrictEqual(received.map((r) => [r.path, r.contentType]), [["/v1/traces", "application/json"]])
      const spans = yield* spansOf(received)
      const byName = new Map(spans.map((s) => [s.name, s]))
      const outer = byName.get("Demo.outer")
      const inner = byName.get("Demo.inner")
      assert.isDefined(outer)
      assert.isDefined(inner)
      assert.strictEqual(inner?.traceId, traceId)
      assert.strictEqual(outer?.traceId, traceId)
      assert.strictEqual(inner?.parentSpanId, outer?.spanId)
      const service = outer?.resource.attributes.find((a) => a.key === "service.name")
      assert.strictEqual(service?.value.stringValue, "brein-test")
    }).pipe(Effect.scoped))

  it.live("the service name defaults to brein; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as given", () =>
    Effect.gen(function* () {
      const server = yield* collector
      yield* traced({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${server.url}/collect/traces` })
      const received = yield* waitUntil(Effect.sync(() => [...server.received]), (r) => r.length > 0, { what: "an OTLP export" })
      assert.deepStrictEqual(received.map((r) => r.path), ["/collect/traces"])
      const [span] = yield* spansOf(received)
      assert.strictEqual(span?.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue, "brein")
    }).pipe(Effect.scoped))

  it.live("without an endpoint no exporter is installed: the native tracer stays", () =>
    Effect.gen(function* () {
      const native = yield* Effect.tracer
      const { tracer } = yield* traced({})
      assert.strictEqual(tracer, native)
      const exporting = yield* Effect.scoped(Effect.flatMap(collector, (server) => traced({ OTEL_EXPORTER_OTLP_ENDPOINT: server.url })))
      assert.notStrictEqual(exporting.tracer, native)
    }))
})
