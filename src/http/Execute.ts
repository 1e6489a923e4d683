import { type HttpApiEndpoint, HttpApiError, type HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import type { IncomingMessage } from "node:http"
import { MAX_DEPTH } from "../../schema/Depth.ts"
import { BadRequest, InvalidInput, ServiceUnavailable } from "../../schema/Errors.ts"
import { BreinApi, ToolsGroup, withExecuteBodyHint } from "../../schema/http/Api.ts"
import { isToolId, MAX_PATH_PARAM, type ToolId } from "../../schema/Ids.ts"
import { issuesIn } from "../../schema/Issues.ts"
import type { Principal } from "../../schema/Principal.ts"
import { EXPOSURE_HEADER } from "../../schema/tools/Definition.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import { Registry } from "../../services/tools/Registry.ts"
import { errorAnswer, Gate, GateError, shallow } from "./Gate.ts"
import { jsonReply, type NodeBridge, type Reply, type Route } from "./NodeBridge.ts"

type Endpoints = HttpApiGroup.HttpApiGroup.Endpoints<typeof ToolsGroup>
type ExecuteEndpoint = HttpApiEndpoint.HttpApiEndpoint.WithName<Endpoints, "execute">
type Payload = HttpApiEndpoint.HttpApiEndpoint.Payload<ExecuteEndpoint>
type Headers = HttpApiEndpoint.HttpApiEndpoint.Headers<ExecuteEndpoint>
type Success = HttpApiEndpoint.HttpApiEndpoint.Success<ExecuteEndpoint>

const isExecute = (endpoint: Endpoints | undefined): endpoint is ExecuteEndpoint => endpoint?.name === "execute"

/** The contract's own endpoint: the thin route decodes and encodes with its schemas, so the two cannot drift. */
const endpoint = Option.getOrThrowWith(
  Option.liftPredicate(ToolsGroup.endpoints["execute"], isExecute),
  () => new Error("the HttpApi contract has no tools.execute endpoint")
)

/** The headers every answer of a tool carries, success and error alike: how its answers reach a model. */
export const makeToolHeaders = Effect.map(
  Registry,
  (registry) => (id: string): Readonly<Record<string, string>> =>
    Option.liftPredicate(id, isToolId).pipe(
      Option.flatMap(registry.get),
      Option.flatMap((tool) => Option.fromNullable(tool.descriptor.exposure)),
      Option.match({ onNone: () => ({}), onSome: (exposure) => ({ [EXPOSURE_HEADER]: exposure }) })
    )
)

const withHeaders = (headers: Readonly<Record<string, string>>) => (reply: Reply): Reply =>
  reply instanceof Response ? reply : { ...reply, headers: { ...reply.headers, ...headers } }

/** What executing a tool over HTTP does, for the thin route and the HttpApi handler alike. */
export const makeExecute = Effect.gen(function* () {
  const executor = yield* Executor
  const gate = yield* Gate
  const registry = yield* Registry
  const takesConnection = (id: ToolId) => Option.exists(registry.get(id), (tool) => tool.descriptor.external && tool.requiresConnection)
  // untraced: Executor.call is the span below the request's, and this adds nothing to it but cost
  return Effect.fnUntraced(function* (id: string, payload: Payload, headers: Headers, principal: Principal) {
    // a malformed id never reaches the executor, so nothing of it reaches the audit log
    if (!isToolId(id)) return yield* registry.notFound(id, "external")
    yield* shallow(payload.input, "input")
    // Only a tool that takes a connection reads the header: an unknown tool is ToolNotFound (the executor's
    // first step) whatever the header holds, and a tool without a connection ignores it.
    const connectionId = takesConnection(id) ? yield* gate.connection(headers) : undefined
    return yield* executor.call(id, payload.input, { surface: "http", principal, connectionId })
  })
})

// An endpoint's schemas carry its middleware's tag in their context type; no schema reads it.
const contextFree = <A, I>(schema: Schema.Schema<A, I, unknown>) => schema as Schema.Schema<A, I>

const required = <A, I>(schema: Option.Option<Schema.Schema<A, I, unknown>>, what: string) =>
  contextFree(Option.getOrThrowWith(schema, () => new Error(`the execute endpoint declares no ${what}`)))

// The contract's schemas have no effects: decoded and encoded synchronously (an Either is also an Effect).
const decodePayload = Schema.decodeUnknownEither(required(endpoint.payloadSchema, "payload"))
const decodeHeaders = Schema.decodeUnknownEither(required(endpoint.headersSchema, "headers"))
const encodeSuccess = Schema.encodeEither(contextFree(endpoint.successSchema))
const successStatus = HttpApiSchema.getStatusSuccessAST(endpoint.successSchema.ast)

const errorMembers = (() => {
  const schemas = new Set<Schema.Schema.Any>()
  HttpApiSchema.deunionize(schemas, endpoint.errorSchema)
  HttpApiSchema.deunionize(schemas, BreinApi.errorSchema)
  return Array.from(schemas, contextFree).map((schema) => ({
    is: Schema.is(schema),
    encode: Schema.encodeUnknownSync(schema),
    status: HttpApiSchema.getStatusErrorAST(schema.ast)
  }))
})()

const isGateError = Schema.is(GateError)

const hasRetryAfter = (error: unknown): error is { readonly retryAfterSeconds: number } =>
  typeof error === "object" && error !== null && "retryAfterSeconds" in error && typeof error.retryAfterSeconds === "number"

/** An error the contract declares, encoded as the HttpApi encodes it; every 503 says when to retry. */
const declared = (error: unknown): Effect.Effect<Reply> => {
  const member = errorMembers.find((m) => m.is(error))
  if (member === undefined) return Effect.die(error)
  const headers = hasRetryAfter(error)
    ? { "retry-after": String(error.retryAfterSeconds) }
    : member.status === 503
    ? { "retry-after": String(ServiceUnavailable.database.retryAfterSeconds) }
    : {}
  return Effect.succeed(jsonReply({ status: member.status, headers, body: member.encode(error) }))
}

/** A decoding failure reported as the HttpApi route reports it (its issue list, read through ours). */
const invalid = (error: ParseResult.ParseError) =>
  Effect.flatMap(
    HttpApiError.HttpApiDecodeError.fromParseError(error),
    (decoded) => {
      const { issues, total } = issuesIn(decoded.issues, "")
      return Effect.fail(withExecuteBodyHint(InvalidInput.of(issues, total)))
    }
  )

// as the API's other routes and /mcp decode a body: a leading byte order mark is no part of the JSON
const utf8 = new TextDecoder()

const parseBody = (body: Buffer | undefined): Effect.Effect<unknown, BadRequest | InvalidInput> => {
  const text = body === undefined ? "" : utf8.decode(body)
  if (text === "") return Effect.succeed(null)
  const parsed = Either.try({ try: (): unknown => JSON.parse(text), catch: (error) => error })
  // An array is no payload, whatever it holds ("body must be a JSON object, got an array"); its decoding is
  // handed an empty one, since the message Schema builds would print the array whole, nested past any depth.
  if (Either.isRight(parsed)) return Effect.succeed(Array.isArray(parsed.right) ? [] : parsed.right)
  return parsed.left instanceof RangeError
    ? Effect.fail(InvalidInput.of([{ path: "body", message: `nests deeper than ${MAX_DEPTH} levels (objects and arrays)` }]))
    : Effect.fail(new BadRequest({ message: "the request body is not valid JSON" }))
}

// the router's own limit (./Server.ts): a longer segment is no route there, and the HttpApi app answers it
const EXECUTE = new RegExp(`^/api/v1/tools/([^/%]{1,${MAX_PATH_PARAM}})/execute$`)

/**
 * `POST /api/v1/tools/{id}/execute` on the bridge, answering as the HttpApi endpoint does: same schemas,
 * statuses and headers. An id that is percent-encoded or too long is left to the HttpApi app.
 */
export const makeExecuteRoute = (bridge: NodeBridge) =>
  Effect.map(Effect.all([makeExecute, makeToolHeaders]), ([execute, toolHeaders]): Route => ({
    name: "/api/v1/tools/{id}/execute",
    matches: (method, path) => method === "POST" && EXECUTE.test(path),
    handle: (request: IncomingMessage) => {
      const id = EXECUTE.exec(request.url?.split("?")[0] ?? "")?.[1] ?? ""
      return Effect.gen(function* () {
        const body = yield* bridge.admit(request, { sameSite: false })
        const principal = yield* bridge.authenticate(request)
        const payload = yield* Effect.flatMap(parseBody(body), decodePayload)
        const headers = yield* decodeHeaders(request.headers)
        const response: Success = yield* execute(id, payload, headers, principal)
        return jsonReply({ status: successStatus, headers: {}, body: yield* Effect.orDie(encodeSuccess(response)) })
      }).pipe(
        Effect.catchIf(ParseResult.isParseError, invalid),
        Effect.catchIf((error) => !isGateError(error), declared),
        // answered here as the bridge would, so that a refusal carries the tool's headers too
        Effect.catchAll((error) => Effect.succeed(jsonReply(errorAnswer(error)))),
        Effect.map(withHeaders(toolHeaders(id)))
      )
    }
  }))
