import { HttpApiBuilder, HttpApp, HttpRouter, HttpServer, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Either, Layer } from "effect"
import { createServer } from "node:http"
import { BreinApi } from "../../schema/http/Api.ts"
import { UNSUBSCRIBE_PREFIX } from "../../schema/http/Unsubscribe.ts"
import { MAX_PATH_PARAM } from "../../schema/Ids.ts"
import { PortConfig } from "../../schema/Port.ts"
import { Luna } from "../../services/luna/Luna.ts"
import { DispatchStore } from "../../services/sequences/DispatchStore.ts"
import { SyncJobs } from "../../services/sync/SyncJobs.ts"
import { makeMcpRoute } from "../mcp/Http.ts"
import { AccountLive } from "./Account.ts"
import { AuthenticationLive } from "./Authentication.ts"
import { answerClientErrors } from "./ClientError.ts"
import { ConnectionsLive } from "./Connections.ts"
import { DocsLive } from "./Docs.ts"
import { drainable, HttpDrain, shutdownGrace } from "./Drain.ts"
import { makeExecuteRoute } from "./Execute.ts"
import { FORM_BODIES, Gate, hasBody, isJsonBody, JSON_BODIES, MAX_BODY_BYTES } from "./Gate.ts"
import { HealthLive } from "./Health.ts"
import { HumansLive, SequenceAuthorizationsLive } from "./Humans.ts"
import { ChatPrincipalLive, HumanSessionLive, KeyOrSessionLive } from "./HumanSession.ts"
import { makeNodeBridge } from "./NodeBridge.ts"
import { OpenApiLive } from "./OpenApi.ts"
import { portUnavailable } from "./PortUnavailable.ts"
import { queryParams } from "./QueryParams.ts"
import { RefusalsLive, refuseAt, withRetryAfter } from "./Refusals.ts"
import { SessionsLive } from "./Sessions.ts"
import { ToolsLive } from "./Tools.ts"
import { UnsubscribeLive } from "./Unsubscribe.ts"

export { MAX_BODY_BYTES }

const BODY_READERS = ["text", "json", "urlParamsBody", "arrayBuffer", "stream", "multipart", "multipartStream"] as const

/**
 * A body, read through the gate's limit, handed on in memory: the body's readers (and the
 * headers, with its length instead of transfer-encoding) come from a request built on the buffer,
 * everything else (the Node response the answer is written to, upgrades, the remote address) stays
 * the Node request's. A plain `fromWeb` request has no Node response, and writing the answer failed
 * with an empty 500.
 */
const withBody = (request: HttpServerRequest.HttpServerRequest, body: Buffer): HttpServerRequest.HttpServerRequest => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) if (name !== "transfer-encoding") headers.set(name, value)
  headers.set("content-length", String(body.length))
  // The API parses a body as JSON only under application/json; any +json type the gate admitted is JSON too
  // (and already checked to be UTF-8), where it was read as bytes and refused field by byte ("0 is not a field").
  if (isJsonBody(request.headers)) headers.set("content-type", "application/json")
  const inMemory = HttpServerRequest.fromWeb(
    new Request(`http://localhost${request.url}`, { method: request.method, headers, body })
  )
  const descriptors: PropertyDescriptorMap = {
    headers: { get: () => inMemory.headers },
    modify: { value: (options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) => withBody(request.modify(options), body) }
  }
  for (const reader of BODY_READERS) descriptors[reader] = { get: () => inMemory[reader] }
  return Object.create(request, descriptors) as HttpServerRequest.HttpServerRequest
}

/**
 * The gate in front of the REST API: declared size and content type, the query's parameters, then the body
 * read within the limit, as UTF-8.
 */
export const gateway = Effect.fn("HttpServer.gateway")(function*<E, R> (app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) {
  const request = yield* HttpServerRequest.HttpServerRequest
  const gate = yield* Gate
  const admitted = yield* Effect.either(
    gate.admit(request.headers, request.url.startsWith(UNSUBSCRIBE_PREFIX) ? FORM_BODIES : JSON_BODIES).pipe(
      Effect.zipRight(queryParams(request.method, request.url))
    )
  )
  if (Either.isLeft(admitted)) return refuseAt(request.url, admitted.left)
  // on every answer as it is written, the API's encoded errors included (a 503 page as much as a JSON error)
  yield* HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(withRetryAfter(response)))
  // every body is read here, within the limit and checked to be UTF-8 (the gate's reader), and handed on in memory;
  // a GET or HEAD has no body to hand on (no route reads one, and a request built with one cannot be)
  if (!hasBody(request.headers) || request.method === "GET" || request.method === "HEAD") return yield* app
  const body = yield* Effect.either(gate.readBody(NodeHttpServerRequest.toIncomingMessage(request)))
  if (Either.isLeft(body)) return refuseAt(request.url, body.left)
  return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBody(request, body.right))
})

export const ApiLive = HttpApiBuilder.api(BreinApi).pipe(
  Layer.provide([
    Layer.mergeAll(ToolsLive, ConnectionsLive, AccountLive).pipe(Layer.provide(AuthenticationLive)),
    Layer.mergeAll(HumansLive, SequenceAuthorizationsLive).pipe(Layer.provide([HumanSessionLive, KeyOrSessionLive])),
    SessionsLive.pipe(Layer.provide(ChatPrincipalLive)),
    UnsubscribeLive.pipe(Layer.provide(DispatchStore.Default)),
    HealthLive
  ])
)

/** The HTTP app: REST API, OpenAPI document and docs page, without a listening socket. */
export const HttpAppLive = Layer.mergeAll(OpenApiLive, DocsLive, RefusalsLive).pipe(
  Layer.provideMerge(ApiLive)
)

/**
 * The listening socket: /mcp and the execute route are answered on the Node bridge, every other
 * request goes to the HTTP app.
 */
export const listen = (port: number) =>
  Layer.unwrapScoped(Effect.gen(function* () {
    const bridge = yield* makeNodeBridge
    const routes = [yield* makeMcpRoute(bridge), yield* makeExecuteRoute(bridge)]
    const server = answerClientErrors(createServer())
    const drain = yield* drainable(server)
    const httpServer = yield* bridge.httpServer(server, routes, { port }).pipe(
      Effect.catchTag("ServeError", (error) => Effect.fail(portUnavailable(port, error.cause)))
    )
    return Layer.mergeAll(Layer.succeed(HttpServer.HttpServer, httpServer), NodeHttpServer.layerContext, Layer.succeed(HttpDrain, drain))
  }))

/**
 * Built after the server, so released before it: a shutdown drains the socket while the request
 * handlers and every service they use are still there, and only then takes them down. Calls waiting
 * on syncs answer first, with their jobs as they stand, and Luna's turns end (their streams with them):
 * either may last longer than the grace.
 */
export const drainOnShutdown = Layer.scopedDiscard(Effect.gen(function* () {
  const { drain } = yield* HttpDrain
  const jobs = yield* SyncJobs
  const luna = yield* Luna
  const grace = yield* shutdownGrace
  yield* Effect.addFinalizer(() => Effect.all([jobs.stopWaiting(), luna.stop(), drain(grace)], { discard: true }))
}))

/** REST and /mcp on the given server, behind one gate (which needs Workspaces). */
export const serveOn = <A, E, R>(server: Layer.Layer<A, E, R>) =>
  HttpApiBuilder.serve(gateway).pipe(
    Layer.provide(HttpAppLive),
    // find-my-way's default (100) is below the longest tool id: every id a path may hold reaches its route
    Layer.provide(HttpRouter.setRouterConfig({ maxParamLength: MAX_PATH_PARAM })),
    Layer.provideMerge(server),
    Layer.provideMerge(Gate.Default)
  )

export const HttpServerLive = drainOnShutdown.pipe(
  Layer.provideMerge(serveOn(Layer.unwrapEffect(Effect.map(PortConfig, listen)))),
  HttpServer.withLogAddress
)
