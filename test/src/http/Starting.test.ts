import { HttpServerResponse } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, Queue, Schema, Scope } from "effect"
import { createServer } from "node:http"
import { ServiceUnavailable } from "../../../schema/Errors.ts"
import { Gate } from "../../../src/http/Gate.ts"
import { makeNodeBridge } from "../../../src/http/NodeBridge.ts"
import { ServicesTest } from "../../support/TestLayers.ts"

const Answer = Schema.Struct({ status: Schema.Number, retryAfter: Schema.NullOr(Schema.String), body: Schema.Unknown })

/** GET `path` on the server at `port`: the status, Retry-After and the JSON body. */
const get = (port: number, path: string) =>
  Effect.promise(async () => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`)
    return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() as unknown }
  }).pipe(Effect.flatMap(Schema.decodeUnknown(Answer)), Effect.orDie)

/**
 * A server on the bridge, listening in `scope` without an app yet (as `serve` listens before its app is
 * built), and the paths of the requests it received, in order.
 */
const listening = (scope: Scope.Scope) =>
  Effect.gen(function* () {
    const received = yield* Queue.unbounded<string>()
    const server = createServer()
    server.on("request", (request) => void Queue.unsafeOffer(received, request.url ?? ""))
    const bridge = yield* makeNodeBridge
    const http = yield* Scope.extend(bridge.httpServer(server, [], { port: 0 }), scope)
    const port = http.address._tag === "TcpAddress" ? http.address.port : yield* Effect.dieMessage("the server is not on TCP")
    return { http, port, received }
  })

const app = HttpServerResponse.unsafeJson({ status: "ok" })
const stopping = { _tag: "ServiceUnavailable", message: ServiceUnavailable.stopping.message, retryAfterSeconds: 2 }

layer(Gate.Default.pipe(Layer.provideMerge(ServicesTest)), { excludeTestServices: true })("a server that is starting", (it) => {
  it.scoped("a request that comes before the app is built waits for it and is answered by it, not refused", () =>
    Effect.gen(function* () {
      const { http, port, received } = yield* listening(yield* Effect.scope)
      const answer = yield* Effect.fork(get(port, "/health"))
      assert.strictEqual(yield* Queue.take(received), "/health", "the server received the request before it had an app")
      yield* http.serve(app)
      assert.deepStrictEqual(yield* Fiber.join(answer), { status: 200, retryAfter: null, body: { status: "ok" } })
      // and the requests after it, at once
      assert.strictEqual((yield* get(port, "/health")).status, 200)
    }))

  it.scoped("once its app is taken down, a request is answered 503 saying the server is stopping", () =>
    Effect.gen(function* () {
      const { http, port } = yield* listening(yield* Effect.scope)
      const served = yield* Effect.scoped(Effect.zipRight(http.serve(app), get(port, "/health")))
      assert.strictEqual(served.status, 200)
      assert.deepStrictEqual(yield* get(port, "/health"), { status: 503, retryAfter: "2", body: stopping })
    }))

  it.scoped("a request still waiting for an app when the server stops is answered 503, not left open", () =>
    Effect.gen(function* () {
      // closed by the test to stop the server, and by the test's scope if an assertion fails before that
      const scope = yield* Effect.acquireRelease(Scope.make(), (scope) => Scope.close(scope, Exit.void))
      const { port, received } = yield* listening(scope)
      const answer = yield* Effect.fork(get(port, "/health"))
      yield* Queue.take(received)
      assert.isTrue(Option.isNone(yield* Fiber.poll(answer)), "no answer before the server stops")
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(yield* Fiber.join(answer), { status: 503, retryAfter: "2", body: stopping })
    }))
})
