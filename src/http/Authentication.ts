import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { Authentication } from "../../schema/http/Security.ts"
import { Gate } from "./Gate.ts"

// per request, under the request's span: plain, as Gate's checks are (see Gate)
const fromRequest = (gate: Gate) =>
  Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) => gate.authenticateFrom(Option.getOrUndefined(request.remoteAddress), request.headers)
  )

/** The bearer scheme stays declared for OpenAPI; the key is checked by the gate, within the rate limits, as on /mcp. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Gate, (gate) => Authentication.of({ bearer: () => fromRequest(gate) }))
)
