import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Authentication } from "../../schema/http/Security.ts"
import { Gate } from "./Gate.ts"

/** The bearer scheme stays declared for OpenAPI; the key is checked by the gate, as on /mcp. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Gate, (gate) =>
    Authentication.of({ bearer: () => Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => gate.authenticate(request.headers)) })
  )
)
