import { HttpApi, HttpApiBuilder, HttpApiError, HttpServerError, HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import { Cause, Effect, Either, Option, Schema } from "effect"
import { MAX_DEPTH } from "../../schema/Depth.ts"
import {
  BadRequest,
  InternalError,
  InvalidInput,
  MethodNotAllowed,
  RateLimited,
  RouteNotFound,
  ServiceUnavailable,
  Unauthorized
} from "../../schema/Errors.ts"
import { BreinApi, EXECUTE_PATH, withExecuteBodyHint } from "../../schema/http/Api.ts"
import { HTML, UNSUBSCRIBE_PREFIX } from "../../schema/http/Unsubscribe.ts"
import { FAILED_PAGE, NOT_CONFIRMED_PAGE, UNAVAILABLE_PAGE, UNKNOWN_LINK_PAGE } from "../../schema/http/UnsubscribePages.ts"
import { issuesIn } from "../../schema/Issues.ts"
import { ModelNotConfigured } from "../../schema/luna/LunaErrors.ts"
import { transientIn } from "../../services/Database.ts"
import { errorAnswer, type GateError, tooLarge } from "./Gate.ts"

/** A refusal as the Effect server writes it: the gate's one encoding. */
export const refuse = (error: GateError) => {
  const answer = errorAnswer(error)
  return HttpServerResponse.unsafeJson(answer.body, { status: answer.status, headers: answer.headers })
}

/** What a recipient on an unsubscribe link reads for each refusal; the status and headers stay the typed error's. */
const PAGES: Record<GateError["_tag"], string> = {
  BadRequest: NOT_CONFIRMED_PAGE,
  InvalidInput: NOT_CONFIRMED_PAGE,
  PayloadTooLarge: NOT_CONFIRMED_PAGE,
  UnsupportedMediaType: NOT_CONFIRMED_PAGE,
  RouteNotFound: UNKNOWN_LINK_PAGE,
  MethodNotAllowed: UNKNOWN_LINK_PAGE,
  Unauthorized: UNKNOWN_LINK_PAGE,
  Forbidden: UNKNOWN_LINK_PAGE,
  RateLimited: UNAVAILABLE_PAGE,
  ServiceUnavailable: UNAVAILABLE_PAGE,
  InternalError: FAILED_PAGE
}

/**
 * A refusal written for whoever is at `url`: on an unsubscribe link, a person who clicked a link in a
 * message, so a page in their language; everywhere else an API client, so the JSON error.
 */
export const refuseAt = (url: string, error: GateError) => {
  if (!url.startsWith(UNSUBSCRIBE_PREFIX)) return refuse(error)
  const answer = errorAnswer(error)
  return HttpServerResponse.text(PAGES[error._tag], { status: answer.status, headers: answer.headers, contentType: HTML })
}

// The routes the API app serves (/mcp is the Node bridge's, which answers every method there itself).
interface Route {
  readonly method: string
  readonly pattern: RegExp
}

export const patternOf = (path: string) =>
  new RegExp(`^${path.split("/").map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`)

const routes: ReadonlyArray<Route> = (() => {
  const found: Array<Route> = [
    { method: "GET", pattern: patternOf("/openapi.json") },
    { method: "GET", pattern: patternOf("/docs") }
  ]
  HttpApi.reflect(BreinApi, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => void found.push({ method: endpoint.method, pattern: patternOf(endpoint.path) })
  })
  return found
})()

const decodes = (path: string) => Either.isRight(Either.try(() => decodeURIComponent(path)))

const noRoute = (method: string, url: string) => {
  const path = url.split("?")[0] ?? url
  const refuse = (error: GateError) => refuseAt(path, error)
  // a route that answers GET answers HEAD too (the router serves it), so both are said
  const allowed = [
    ...new Set(
      routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.method === "GET" ? ["GET", "HEAD"] : [route.method])
    )
  ]
  // the router matches no parameter longer than any id (MAX_PATH_PARAM) nor one it cannot decode: nothing is there
  if (allowed.includes(method)) {
    const why = decodes(path)
      ? "no id is that long"
      : "its path is not valid percent-encoding (a % must begin an escape of UTF-8, such as %20)"
    return refuse(new RouteNotFound({ message: `nothing at ${JSON.stringify(path.slice(0, 200))}: ${why}` }))
  }
  return allowed.length === 0
    ? refuse(
      new RouteNotFound({
        message: `no route ${method} ${path.slice(0, 200)}`,
        hint: "GET /openapi.json describes every route; GET /api/v1/tools lists the tools"
      })
    )
    : refuse(
      new MethodNotAllowed({ message: `${path.slice(0, 200)} does not answer ${method}; it answers ${allowed.join(", ")}`, allowed })
    ).pipe(
      HttpServerResponse.setHeader("allow", allowed.join(", "))
    )
}

const isDecodeError = Schema.is(HttpApiError.HttpApiDecodeError)
const isMultipartError = Schema.is(Multipart.MultipartError)
const isRateLimited = Schema.is(RateLimited)
const isUnauthorized = Schema.is(Unauthorized)

const retryAfterBody = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ retryAfterSeconds: Schema.Int })))
const notConfigured = Schema.decodeUnknownOption(Schema.parseJson(Schema.Struct({ _tag: Schema.Literal(ModelNotConfigured._tag) })))

/** The wait a 503's own body names (a typed error that names one), none for a missing model, else the database's. */
const retryAfterOf = (response: HttpServerResponse.HttpServerResponse): Option.Option<number> => {
  const body = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""
  if (Option.isSome(notConfigured(body))) return Option.none()
  return Option.some(Option.match(retryAfterBody(body), {
    onNone: () => ServiceUnavailable.database.retryAfterSeconds,
    onSome: (named) => named.retryAfterSeconds
  }))
}

/**
 * Every 503 (the database or the audit log is away, the credentials key unusable) tells the client when to
 * try again: the gateway sets it on every answer, as its body says when it says. Not ModelNotConfigured:
 * no model appears until its operator sets one, so a client told to wait would only loop.
 */
export const withRetryAfter = (response: HttpServerResponse.HttpServerResponse) =>
  response.status === 503 && response.headers["retry-after"] === undefined
    ? Option.match(retryAfterOf(response), {
      onNone: () => response,
      onSome: (seconds) => HttpServerResponse.setHeader(response, "retry-after", String(seconds))
    })
    : response

const refusal = <E>(method: string, url: string, cause: Cause.Cause<E>) => {
  const refuse = (error: GateError) => refuseAt(url, error)
  const error = Cause.squash(cause)
  if (isDecodeError(error)) {
    const { issues, total } = issuesIn(error.issues, "")
    const invalid = InvalidInput.of(issues, total)
    return Effect.succeed(refuse(EXECUTE_PATH.test(url.split("?")[0] ?? "") ? withExecuteBodyHint(invalid) : invalid))
  }
  // the API's own encoding would drop the Retry-After and WWW-Authenticate headers
  if (isRateLimited(error) || isUnauthorized(error)) return Effect.succeed(refuse(error))
  if (HttpServerError.isServerError(error) && error._tag === "RouteNotFound") return Effect.succeed(noRoute(method, url))
  if (HttpServerError.isServerError(error) && error._tag === "RequestError" && error.reason === "Decode") {
    return Effect.succeed(refuse(new BadRequest({ message: "the request body is not valid JSON" })))
  }
  // a multipart body (taken on unsubscribe links) cut short, malformed, or with more in it than a form needs
  if (isMultipartError(error)) {
    return Effect.succeed(
      refuse(error.reason === "Parse" ? new BadRequest({ message: "the request body is not a valid multipart form" }) : tooLarge)
    )
  }
  // a body nested deep enough to overflow the stack while the API decodes it (the tools' input is checked before)
  if (error instanceof RangeError && error.message.includes("call stack")) {
    return Effect.succeed(
      refuse(InvalidInput.of([{ path: "body", message: `nests deeper than ${MAX_DEPTH} levels (objects and arrays)` }]))
    )
  }
  if (error instanceof ServiceUnavailable) return Effect.succeed(refuse(error))
  // The database went away under the request: a typed 503 the client can retry, not an empty 500.
  if (Option.isSome(transientIn(cause))) {
    return Effect.logWarning("database unavailable: answering 503", cause).pipe(Effect.as(refuse(ServiceUnavailable.database)))
  }
  if (Cause.isFailType(cause) || Cause.isInterruptedOnly(cause) || Option.isSome(Cause.failureOption(cause))) {
    return Effect.failCause(cause)
  }
  return Effect.logError("request failed unexpectedly", cause).pipe(Effect.as(refuse(InternalError.unexpected)))
}

/**
 * What the API itself would answer with its own shapes (a schema tree for a bad body, an empty 400
 * for malformed JSON, an empty 404 for an unknown route) answered with the project's typed errors, as
 * pages on unsubscribe links (`refuseAt`).
 */
export const RefusalsLive = HttpApiBuilder.middleware((app) =>
  Effect.catchAllCause(
    app,
    (cause) => Effect.flatMap(HttpServerRequest.HttpServerRequest, ({ method, url }) => refusal(method, url, cause))
  )
)
