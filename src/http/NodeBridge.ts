import { HttpServer, HttpServerError } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Exit } from "effect"
import { Cause, Context, Effect, Option, Runtime, Tracer } from "effect"
import { type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { ListenOptions } from "node:net"
import { InternalError, ServiceUnavailable } from "../../schema/Errors.ts"
import type { Principal } from "../../schema/Principal.ts"
import { transientIn } from "../../services/Database.ts"
import { type ErrorAnswer, errorAnswer, Gate, type GateError, hasBody } from "./Gate.ts"
import { queryParams } from "./QueryParams.ts"

export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => void

export interface JsonReply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

/** What a route answers: JSON written in one piece, or a web `Response` (event streams as they come). */
export type Reply = JsonReply | Response

export const jsonReply = (answer: ErrorAnswer): JsonReply => ({
  status: answer.status,
  headers: answer.headers,
  text: JSON.stringify(answer.body)
})

/**
 * Registers what to do if the client leaves before its answer is written, besides interrupting the
 * route's fiber (which the bridge does anyway): for a route that hands the request to work running
 * outside that fiber. Called after the client left, it runs `callback` at once.
 */
export type WhenLeft = (callback: () => void) => void

/** A route served below the HttpApi stack: `name` is its template, as in the request span's name. */
export interface Route {
  readonly name: string
  readonly matches: (method: string, path: string) => boolean
  readonly handle: (request: IncomingMessage, whenLeft: WhenLeft) => Effect.Effect<Reply, GateError>
}

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query < 0 ? url : url.slice(0, query)
}

const writeJson = (response: ServerResponse, reply: JsonReply) =>
  void response.writeHead(reply.status, {
    ...reply.headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(reply.text))
  }).end(reply.text)

// a reader loop: `Response.text()` costs several times more for a small JSON body
const readAll = async (stream: ReadableStream<Uint8Array>) => {
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value)
  return Buffer.concat(chunks)
}

const drained = (response: ServerResponse) => new Promise<void>((resolve) => void response.once("drain", resolve).once("close", resolve))

/** Event frames as they come; a client that leaves cancels the stream. */
const streamTo = async (response: ServerResponse, stream: ReadableStream<Uint8Array>) => {
  const reader = stream.getReader()
  response.once("close", () => void reader.cancel().catch(() => undefined))
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (!response.write(next.value) && !response.destroyed) await drained(response)
  }
  response.end()
}

const writeWeb = async (response: ServerResponse, answer: Response) => {
  const headers: Record<string, string> = {}
  answer.headers.forEach((value, name) => void (headers[name] = value))
  if (answer.body === null) return void response.writeHead(answer.status, headers).end()
  if (headers["content-type"]?.startsWith("text/event-stream") === true) {
    return streamTo(response.writeHead(answer.status, headers), answer.body)
  }
  const body = await readAll(answer.body)
  response.writeHead(answer.status, { ...headers, "content-length": String(body.length) }).end(body)
}

const write = (response: ServerResponse, reply: Reply) =>
  reply instanceof Response
    ? Effect.tryPromise(() => writeWeb(response, reply)).pipe(Effect.catchAll(() => Effect.sync(() => response.destroy())))
    : Effect.sync(() => writeJson(response, reply))

/** A request that failed other than with a refusal: the database away is a 503 to retry, anything else a 500. */
const unexpected = (cause: Cause.Cause<never>): Effect.Effect<Reply, never> =>
  Option.isSome(transientIn(cause))
    ? Effect.as(Effect.logWarning("database unavailable: answering 503", cause), jsonReply(errorAnswer(ServiceUnavailable.database)))
    : Effect.as(Effect.logError("request failed unexpectedly", cause), jsonReply(errorAnswer(InternalError.unexpected)))

/**
 * `runtime` with `span` as the parent of the spans a fiber started on it opens: a fiber that starts with
 * it in its context, rather than providing it once started (which copies the fiber's context).
 */
const under = <R>(runtime: Runtime.Runtime<R>, span: Tracer.AnySpan): Runtime.Runtime<R> =>
  Runtime.make({
    context: Context.add(runtime.context, Tracer.ParentSpan, span),
    runtimeFlags: runtime.runtimeFlags,
    fiberRefs: runtime.fiberRefs
  })

/** How a promise run for a non-Effect SDK is placed: below `parent`'s span; interrupted when `signal` aborts. */
export interface RunOptions {
  readonly parent?: Tracer.AnySpan | undefined
  readonly signal?: AbortSignal | undefined
}

/**
 * Promises for a non-Effect SDK: an Effect run on the runtime captured where this is built. A `signal`
 * that aborts (the SDK's word that the request was canceled or its connection closed) interrupts the
 * fiber, as a client that leaves interrupts a route's.
 */
export const promiseRunner = Effect.map(
  Effect.runtime<never>(),
  (runtime) => {
    const runExit = Runtime.runPromiseExit(runtime)
    return <A, E>(effect: Effect.Effect<A, E>, options: RunOptions = {}): Promise<Exit.Exit<A, E>> => {
      const signal = options.signal === undefined ? undefined : { signal: options.signal }
      return options.parent === undefined
        ? runExit(effect, signal)
        : Runtime.runPromiseExit(under(runtime, options.parent))(effect, signal)
    }
  }
)

/**
 * The one place where Node's `(request, response)` handlers meet the Effect runtime. Each request to
 * a route runs as one fiber on the runtime captured here, inside its `http.server <METHOD> <route>`
 * span: the gate (Gate's methods), the route, its refusals written with `errorAnswer`, the database
 * away as a 503, a defect as a 500, a client that leaves interrupting the fiber. Every other request
 * goes to the Effect HTTP app through the platform's own Node handler.
 */
export const makeNodeBridge = Effect.gen(function* () {
  const gate = yield* Gate
  const runtime = yield* Effect.runtime<never>()

  // Untraced, as are the gate's checks: they run on every request inside its span, and a span of
  // their own costs more than they do (a span is ~30 plain effects on this runtime: NOTES, bench:http).
  /** Origin (for a surface a browser page could reach), declared size and type, the query, then the body within the limit. */
  const admit = Effect.fnUntraced(function* (request: IncomingMessage, options: { readonly sameSite: boolean }) {
    if (options.sameSite) yield* gate.sameSite(request.headers)
    yield* gate.admit(request.headers)
    yield* queryParams(request.method ?? "", request.url ?? "")
    return hasBody(request.headers) ? yield* gate.readBody(request) : undefined
  })

  /** The request's API key, within the per-key and per-address limits. */
  const authenticate = (request: IncomingMessage): Effect.Effect<Principal, GateError> =>
    gate.authenticateFrom(request.socket.remoteAddress, request.headers)

  const tracer = yield* Effect.tracer
  const clock = yield* Effect.clock

  const respond = (route: Route, request: IncomingMessage, response: ServerResponse, whenLeft: WhenLeft) =>
    route.handle(request, whenLeft).pipe(
      Effect.catchAll((error) => Effect.succeed<Reply>(jsonReply(errorAnswer(error)))),
      Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : unexpected(cause))),
      Effect.tap((reply) => Effect.annotateCurrentSpan("http.response.status_code", reply.status)),
      Effect.flatMap((reply) => write(response, reply))
    )

  // The request's span opens before its fiber and ends with it; the fiber starts under it (`under`).
  const serve = (route: Route, request: IncomingMessage, response: ServerResponse, method: string, path: string) => {
    const span = tracer.span(
      `http.server ${method} ${route.name}`,
      Option.none(),
      Context.empty(),
      [],
      clock.unsafeCurrentTimeNanos(),
      "server"
    )
    span.attribute("http.request.method", method)
    span.attribute("http.route", route.name)
    span.attribute("url.path", path)
    // the one listener on the response's close: a route's own hook rides on it (`WhenLeft`)
    let onLeave: (() => void) | undefined
    let left = false
    const whenLeft: WhenLeft = (callback) => left ? callback() : void (onLeave = callback)
    const fiber = Runtime.runFork(under(runtime, span))(respond(route, request, response, whenLeft))
    fiber.addObserver((exit) => span.end(clock.unsafeCurrentTimeNanos(), exit))
    response.once("close", () => {
      if (response.writableEnded) return
      left = true
      fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
      onLeave?.()
    })
  }

  /** Routes first, by method and path; everything else to `fallback`. */
  const dispatch = (routes: ReadonlyArray<Route>, fallback: NodeHandler): NodeHandler => (request, response) => {
    const method = request.method ?? "GET"
    const path = pathOf(request.url ?? "/")
    for (const route of routes) if (route.matches(method, path)) return serve(route, request, response, method, path)
    fallback(request, response)
  }

  /**
   * The Effect `HttpServer` on `server`, listening on `options`: the app it is given to serve is the
   * dispatcher's fallback. The socket listens before that app is built (the layer that builds it needs
   * the server, and the server's address is known by then), so a request for the app that comes first
   * (a health check polling a server that is starting) waits for it, rather than being refused with an
   * error that is not the case. Once the app is taken down (a stop), or if it never comes, such a
   * request is answered 503 ServiceUnavailable, saying the server is stopping.
   */
  const httpServer = Effect.fn("NodeBridge.httpServer")(function* (server: Server, routes: ReadonlyArray<Route>, options: ListenOptions) {
    const stopped: NodeHandler = (_, response) => writeJson(response, jsonReply(errorAnswer(ServiceUnavailable.stopping)))
    const waiting: Array<readonly [IncomingMessage, ServerResponse]> = []
    const starting: NodeHandler = (request, response) => void waiting.push([request, response])
    let app = starting
    /** From now on `handler` answers what the app would; the requests that waited for it first. */
    const answerWith = (handler: NodeHandler) => {
      app = handler
      for (const [request, response] of waiting.splice(0)) handler(request, response)
    }
    const listening = yield* NodeHttpServer.make(() => server, options)
    // run before the server closes (finalizers run last first): no request is left without an answer
    yield* Effect.addFinalizer(() => Effect.sync(() => answerWith(stopped)))
    server.on("request", dispatch(routes, (request, response) => app(request, response)))
    return HttpServer.make({
      address: listening.address,
      serve: (httpApp, middleware) =>
        Effect.gen(function* () {
          answerWith(
            middleware === undefined
              ? yield* NodeHttpServer.makeHandler(httpApp)
              : yield* NodeHttpServer.makeHandler(httpApp, middleware)
          )
          yield* Effect.addFinalizer(() => Effect.sync(() => answerWith(stopped)))
        })
    })
  })

  return { admit, authenticate, httpServer } as const
})

export type NodeBridge = Effect.Effect.Success<typeof makeNodeBridge>
