import { HttpApiBuilder, HttpApiSecurity } from "@effect/platform"
import { Duration, Effect, type Redacted } from "effect"
import { BreinApi } from "../../schema/http/Api.ts"
import { SESSION_COOKIE, type SessionInfo } from "../../schema/http/Humans.ts"
import { CurrentPrincipal } from "../../schema/http/Security.ts"
import { CurrentHuman, type Human } from "../../schema/humans/Human.ts"
import { Activation } from "../../services/humans/Activation.ts"
import { Csrf } from "../../services/humans/Csrf.ts"
import { SESSION_TTL, Users } from "../../services/humans/Users.ts"

const cookie = HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE })

const infoOf = (csrf: Csrf, human: Human) =>
  Effect.map(csrf.tokenFor(human.sessionId), (token): SessionInfo => ({
    user: { id: human.userId, email: human.email },
    workspace: { id: human.principal.workspaceId, name: human.principal.workspaceName },
    session: { expires_at: human.sessionExpiresAt.toISOString() },
    csrf_token: token
  }))

export const HumansLive = HttpApiBuilder.group(BreinApi, "humans", (handlers) =>
  Effect.gen(function* () {
    const users = yield* Users
    const csrf = yield* Csrf
    const secure = users.publicUrl.protocol === "https:"
    const setCookie = (value: string | Redacted.Redacted<string>, maxAge: Duration.Duration) =>
      HttpApiBuilder.securitySetCookie(cookie, value, {
        httpOnly: true,
        secure,
        sameSite: "strict",
        path: "/",
        maxAge
      })
    return handlers
      .handle("signIn", ({ urlParams }) =>
        Effect.gen(function* () {
          const opened = yield* users.signIn(urlParams.token)
          yield* setCookie(opened.token, SESSION_TTL)
          return yield* infoOf(csrf, opened.human)
        }))
      .handle("me", () => Effect.flatMap(CurrentHuman, (human) => infoOf(csrf, human)))
      .handle("signOut", () =>
        Effect.gen(function* () {
          const human = yield* CurrentHuman
          yield* users.signOut(human.sessionId)
          yield* setCookie("", Duration.zero)
          return { signed_out: true } as const
        }))
  }))

export const SequenceAuthorizationsLive = HttpApiBuilder.group(
  BreinApi,
  "sequenceAuthorizations",
  (handlers) =>
    Effect.map(Activation, (activation) =>
      handlers
        .handle("activate", ({ path, payload }) => activation.activate(path.id, payload.version))
        .handle("pause", ({ path }) => activation.pause(path.id))
        .handle("resume", ({ path }) => activation.resume(path.id))
        .handle("authorizations", ({ path }) =>
          Effect.flatMap(
            CurrentPrincipal,
            (principal) => Effect.map(activation.authorizations(path.id, principal.workspaceId), (authorizations) => ({ authorizations }))
          )))
)
