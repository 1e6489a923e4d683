import { Effect, Layer, Redacted } from "effect"
import { Authentication } from "../../schema/http/Security.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Workspaces, (workspaces) =>
    Authentication.of({ bearer: (token) => workspaces.authenticate(Redacted.value(token)) })
  )
)
