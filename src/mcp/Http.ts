import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { type AuthInfo, createMcpHandler, type McpRequestContext } from "@modelcontextprotocol/server"
import { Effect, Option, Runtime, Schema } from "effect"
import { BadRequest, Unauthorized } from "../../schema/Errors.ts"
import { Principal } from "../../schema/Principal.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { makeMcpSurface } from "./Surface.ts"
import { fromWebResponse, toWebExchange } from "./WebBridge.ts"

const isPrincipal = Schema.is(Principal)

const bearerToken = (header: string | undefined) => {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match?.[1] ?? ""
}

const unauthorized = (error: Unauthorized) =>
  HttpServerResponse.schemaJson(Unauthorized)(error, {
    status: 401,
    headers: { "www-authenticate": 'Bearer realm="brein"' }
  }).pipe(Effect.orDie)

const unreadable = () =>
  HttpServerResponse.schemaJson(BadRequest)(new BadRequest({ message: "the request body could not be read" }), { status: 400 }).pipe(
    Effect.orDie
  )

const authInfoFor = (principal: Principal, token: string): AuthInfo => ({
  token,
  clientId: principal.keyId ?? principal.workspaceId,
  scopes: [],
  extra: { principal }
})

/** Streamable HTTP at /mcp on the API's port: both protocol eras, the same bearer keys as the REST API. */
export const McpHttpLive = (options: { readonly maxBodyBytes: number }) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const workspaces = yield* Workspaces
      const surface = yield* makeMcpSurface
      const runtime = yield* Effect.runtime<never>()
      const factory = (ctx: McpRequestContext) => {
        const principal = ctx.authInfo?.extra?.["principal"]
        return isPrincipal(principal)
          ? surface.server(principal)
          : Promise.reject(new Error("an MCP request reached the server without an authenticated principal"))
      }
      const handler = createMcpHandler(factory, {
        maxRequestBodySize: options.maxBodyBytes,
        onerror: (error) => Runtime.runFork(runtime)(Effect.logDebug("MCP request rejected", error.message))
      })
      yield* Effect.addFinalizer(() => Effect.promise(() => handler.close()))

      const route = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = bearerToken(request.headers["authorization"])
        const principal = yield* workspaces.authenticate(token)
        const { request: web, parsedBody } = yield* toWebExchange
        const options = { authInfo: authInfoFor(principal, token), ...Option.match(parsedBody, { onNone: () => ({}), onSome: (body) => ({ parsedBody: body }) }) }
        return yield* fromWebResponse(yield* Effect.promise(() => handler.fetch(web, options)))
      }).pipe(Effect.catchTags({ Unauthorized: unauthorized, RequestError: unreadable }))

      yield* router.all("/mcp", route)
    })
  )
