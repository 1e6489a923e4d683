import { Headers, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { Readable } from "node:stream"

export interface WebExchange {
  readonly request: Request
  /** The JSON body already parsed, so the SDK neither re-reads nor clones it. */
  readonly parsedBody: Option.Option<unknown>
}

const hasBody = (method: string) => method !== "GET" && method !== "HEAD" && method !== "DELETE"

/**
 * The incoming request as a web `Request`, with its body read once as text. `HttpApp.fromWebHandler`
 * pipes bodies through Effect streams both ways, which cost more than the MCP call itself.
 */
export const toWebExchange = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const url = Option.getOrElse(HttpServerRequest.toURL(request), () => new URL(request.url, "http://localhost"))
  if (!hasBody(request.method)) {
    return { request: new Request(url, { method: request.method, headers: request.headers }), parsedBody: Option.none() } satisfies WebExchange
  }
  const text = yield* request.text
  const parsed = Either.try(() => JSON.parse(text) as unknown)
  return {
    // with a parsed body the SDK reads nothing from the request; otherwise it answers the bad body itself
    request: new Request(url, { method: request.method, headers: request.headers, ...(Either.isLeft(parsed) ? { body: text } : {}) }),
    parsedBody: Either.getRight(parsed)
  } satisfies WebExchange
})

const isEventStream = (contentType: string | undefined) => contentType?.startsWith("text/event-stream") === true

/** A web `Response` back into Effect: JSON bodies as text in one read, event streams piped as they come. */
export const fromWebResponse = (response: Response) => {
  const contentType = response.headers.get("content-type") ?? undefined
  const options = { status: response.status, headers: Headers.remove(Headers.fromInput(response.headers), ["content-type", "content-length"]), contentType }
  if (response.body === null) return Effect.succeed(HttpServerResponse.empty(options))
  if (isEventStream(contentType)) return Effect.succeed(HttpServerResponse.raw(Readable.fromWeb(response.body), options))
  return Effect.map(Effect.promise(() => response.text()), (body) => HttpServerResponse.text(body, options))
}
