import { createServer } from "node:http"
import { HttpApiBuilder, HttpApiScalar, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Config, Effect, Layer, Option } from "effect"
import { BadRequest, PayloadTooLarge } from "../../schema/Errors.ts"
import { BreinApi } from "../../schema/http/Api.ts"
import { AuthenticationLive } from "./Authentication.ts"
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

/**
 * Refuses oversized bodies before anything parses them (chunked bodies are cut at the same size),
 * and gives the bare 400 of an unparsable body a typed JSON error like every other failure.
 */
export const bodyLimit = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > MAX_BODY_BYTES) return tooLarge
    return HttpServerRequest.withMaxBodySize(app, Option.some(MAX_BODY_BYTES)).pipe(
      Effect.flatMap((response) => response.status === 400 && response.body._tag === "Empty" ? unreadable : Effect.succeed(response))
    )
  })

export const ApiLive = HttpApiBuilder.api(BreinApi).pipe(
  Layer.provide([ToolsLive.pipe(Layer.provide(AuthenticationLive)), HealthLive])
)

/** The HTTP app: REST API, OpenAPI document, docs page and MCP, without a listening socket. */
export const HttpAppLive = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" }),
  HttpApiScalar.layer({ path: "/docs" })
).pipe(Layer.provideMerge(ApiLive))

export const HttpServerLive = HttpApiBuilder.serve(bodyLimit).pipe(
  Layer.provide(HttpAppLive),
  HttpServer.withLogAddress,
  Layer.provide(
    Layer.unwrapEffect(
      Effect.map(Config.integer("PORT").pipe(Config.withDefault(8787)), (port) => NodeHttpServer.layer(createServer, { port }))
    )
  )
)
