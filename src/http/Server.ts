import { HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpServer, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Config, Effect, Layer, Option } from "effect"
import { BadRequest, PayloadTooLarge } from "../../schema/Errors.ts"
import { BreinApi } from "../../schema/http/Api.ts"
import { makeMcpHttp, mcpFirstServer } from "../mcp/Http.ts"
import { AuthenticationLive } from "./Authentication.ts"
import { ConnectionsLive } from "./Connections.ts"
import { HealthLive } from "./Health.ts"
import { ToolsLive } from "./Tools.ts"

export const MAX_BODY_BYTES = 1024 * 1024

const tooLarge = HttpServerResponse.json(
  new PayloadTooLarge({ message: `the request body is larger than ${MAX_BODY_BYTES} bytes`, limitBytes: MAX_BODY_BYTES }),
  { status: 413 }
).pipe(Effect.orDie)

const unreadable = HttpServerResponse.json(
  new BadRequest({ message: "the request body could not be read as JSON" }),
  { status: 400 }
).pipe(Effect.orDie)

/** Refuses oversized bodies before anything parses them (chunked bodies are cut at the same size). */
export const bodyLimit = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > MAX_BODY_BYTES) return tooLarge
    return HttpServerRequest.withMaxBodySize(app, Option.some(MAX_BODY_BYTES))
  })

const isUnreadableBody = (defect: unknown) =>
  HttpServerError.isServerError(defect) && defect._tag === "RequestError" && defect.reason === "Decode"

// HttpApiBuilder dies with the RequestError of a body that is not JSON, and the server answers that
// with an empty 400 before any serve-level middleware sees it: only an API-level one can replace it.
const UnreadableBodyLive = HttpApiBuilder.middleware((app) =>
  Effect.catchSomeDefect(app, (defect) => isUnreadableBody(defect) ? Option.some(unreadable) : Option.none())
)

export const ApiLive = HttpApiBuilder.api(BreinApi).pipe(
  Layer.provide([
    Layer.mergeAll(ToolsLive, ConnectionsLive).pipe(Layer.provide(AuthenticationLive)),
    HealthLive
  ])
)

/** The HTTP app: REST API, OpenAPI document and docs page, without a listening socket. */
export const HttpAppLive = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" }),
  HttpApiScalar.layer({ path: "/docs" }),
  UnreadableBodyLive
).pipe(Layer.provideMerge(ApiLive))

/** The listening socket: /mcp is answered on it directly, every other request goes to the HTTP app. */
export const listen = (port: number) =>
  Layer.unwrapScoped(
    Effect.map(makeMcpHttp({ maxBodyBytes: MAX_BODY_BYTES }), (mcp) => NodeHttpServer.layer(() => mcpFirstServer(mcp), { port }))
  )

export const HttpServerLive = HttpApiBuilder.serve(bodyLimit).pipe(
  HttpMiddleware.withTracerDisabledWhen(() => true),
  Layer.provide(HttpAppLive),
  HttpServer.withLogAddress,
  Layer.provide(Layer.unwrapEffect(Effect.map(Config.integer("PORT").pipe(Config.withDefault(8787)), listen)))
)
