import { type AuthInfo, createMcpHandler, type McpRequestContext } from "@modelcontextprotocol/server"
import { Effect, Either, Option, Runtime, Schema, type Tracer } from "effect"
import type { IncomingMessage } from "node:http"
import { MethodNotAllowed } from "../../schema/Errors.ts"
import { Principal } from "../../schema/Principal.ts"
import { bearerToken, MAX_BODY_BYTES } from "../http/Gate.ts"
import { jsonReply, type NodeBridge, type Route, type WhenLeft } from "../http/NodeBridge.ts"
import { rateLimitedRpc } from "./RateLimitedRpc.ts"
import { makeMcpSurface } from "./Surface.ts"

const isPrincipal = Schema.is(Principal)

const authInfoFor = (principal: Principal, token: string, span: Option.Option<Tracer.Span>, whenLeft: WhenLeft): AuthInfo => ({
  token,
  clientId: principal.keyId ?? principal.workspaceId,
  scopes: [],
  extra: { principal, span: Option.getOrUndefined(span), whenLeft }
})

const headersOf = (request: IncomingMessage) => {
  const headers = new Headers()
  const raw = request.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? "", raw[i + 1] ?? "")
  return headers
}

const parseJson = (text: string) => Either.getRight(Either.try((): unknown => JSON.parse(text)))

const isSpan = (value: unknown): value is Tracer.Span =>
  typeof value === "object" && value !== null && "_tag" in value && value._tag === "Span"

const isWhenLeft = (value: unknown): value is WhenLeft => typeof value === "function"

const onlyPost = (method: string) =>
  new MethodNotAllowed({
    message: `/mcp does not answer ${method.slice(0, 20)}; it answers POST (each JSON-RPC message, its answer in the response)`,
    allowed: ["POST"]
  })

/**
 * Streamable HTTP at /mcp, both protocol eras, on the Node bridge (the trip through the Effect HTTP
 * stack and back cost more than the call): the gate, then the SDK's web handler.
 */
export const makeMcpRoute = (bridge: NodeBridge) =>
  Effect.gen(function* () {
    const surface = yield* makeMcpSurface
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    // A client that leaves closes its request's server, which aborts the signal its call runs with
    // (Surface): the call is interrupted, whatever the era and the shape of its answer.
    const factory = (ctx: McpRequestContext) => {
      const extra = ctx.authInfo?.extra
      const principal = extra?.["principal"]
      if (!isPrincipal(principal)) {
        return Promise.reject(new Error("an MCP request reached the server without an authenticated principal"))
      }
      const span = extra?.["span"]
      const server = surface.server(principal, isSpan(span) ? span : undefined)
      const whenLeft = extra?.["whenLeft"]
      if (isWhenLeft(whenLeft)) whenLeft(() => void server.close().catch(() => undefined))
      return server
    }
    const handler = createMcpHandler(factory, {
      maxRequestBodySize: MAX_BODY_BYTES,
      onerror: (error) => void runFork(Effect.logDebug("MCP request rejected", error.message))
    })
    yield* Effect.addFinalizer(() => Effect.promise(() => handler.close()))

    // untraced: the bridge's request span is this request's span
    const handle = Effect.fnUntraced(function* (request: IncomingMessage, whenLeft: WhenLeft) {
      // Served statelessly, /mcp answers POST alone: no stream to open (GET), no session to end (DELETE).
      if (request.method !== "POST") return yield* onlyPost(request.method ?? "")
      const body = yield* bridge.admit(request, { sameSite: true })
      const text = body?.toString("utf8")
      const authenticated = yield* Effect.either(bridge.authenticate(request))
      if (Either.isLeft(authenticated)) {
        // over the rate limit, a JSON-RPC error that answers the request's id
        if (authenticated.left._tag === "RateLimited") return jsonReply(rateLimitedRpc(authenticated.left, text))
        return yield* authenticated.left
      }
      const parsed = text === undefined ? Option.none() : parseJson(text)
      const web = new Request(`http://${request.headers.host ?? "localhost"}${request.url ?? "/mcp"}`, {
        method: request.method ?? "GET",
        headers: headersOf(request),
        // with a parsed body the SDK reads nothing from the request; otherwise it answers the bad body itself
        ...(text !== undefined && Option.isNone(parsed) ? { body: text } : {})
      })
      const authInfo = authInfoFor(
        authenticated.right,
        bearerToken(request.headers.authorization),
        yield* Effect.option(Effect.currentSpan),
        whenLeft
      )
      return yield* Effect.promise(() => handler.fetch(web, Option.isSome(parsed) ? { authInfo, parsedBody: parsed.value } : { authInfo }))
    })

    return { name: "/mcp", matches: (_, path) => path === "/mcp", handle } satisfies Route
  })
