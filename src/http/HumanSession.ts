import { HttpServerRequest } from "@effect/platform"
import type { Exit } from "effect"
import { Effect, Layer, Option, Redacted } from "effect"
import { CsrfRejected, HumanRequired, Unauthorized } from "../../schema/Errors.ts"
import {
  CSRF_HEADER,
  HumanSession,
  type HumanSessionFailure,
  KeyOrSession,
  type KeyOrSessionFailure,
  SESSION_COOKIE
} from "../../schema/http/Humans.ts"
import { ChatPrincipal, type SessionActor } from "../../schema/http/Sessions.ts"
import type { Human } from "../../schema/humans/Human.ts"
import type { Principal } from "../../schema/Principal.ts"
import { Csrf } from "../../services/humans/Csrf.ts"
import { Users } from "../../services/humans/Users.ts"
import { Gate } from "./Gate.ts"

/** Methods that change nothing: every other request made with the cookie needs the CSRF token. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

const headerOf = (request: HttpServerRequest.HttpServerRequest, name: string) => {
  const value = request.headers[name]
  return value === undefined || value === "" ? undefined : value
}

// Per request, under the request's span: plain functions, as the gate's checks are.
const sessionOf = (gate: Gate, users: Users, csrf: Csrf) => (request: HttpServerRequest.HttpServerRequest, token: string) =>
  gate.sessionFrom(Option.getOrUndefined(request.remoteAddress), users.resolve(token)).pipe(
    Effect.tap((human) => {
      if (SAFE_METHODS.has(request.method)) return Effect.void
      const given = headerOf(request, CSRF_HEADER)
      if (given === undefined) return Effect.fail(CsrfRejected.of(true))
      return Effect.flatMap(csrf.matches(human.sessionId, given), (ok) => ok ? Effect.void : Effect.fail(CsrfRejected.of(false)))
    })
  )

const cookieOf = (request: HttpServerRequest.HttpServerRequest) => request.cookies[SESSION_COOKIE] ?? ""

const services = Effect.all({ gate: Gate, users: Users, csrf: Csrf })

/**
 * The person of a request, from the session cookie alone. Fails closed: any Authorization header
 * (an API key, an agent, an MCP client) is refused, whatever cookie rides along.
 */
export const HumanSessionLive = Layer.effect(
  HumanSession,
  Effect.map(services, ({ csrf, gate, users }) => {
    const resolve = sessionOf(gate, users, csrf)
    return HumanSession.of({
      session: (token: Redacted.Redacted<string>) =>
        Effect.flatMap(
          HttpServerRequest.HttpServerRequest,
          (request): Effect.Effect<Human, HumanSessionFailure> =>
            request.headers["authorization"] !== undefined ? Effect.fail(HumanRequired.keyPresent) : resolve(request, Redacted.value(token))
        )
    })
  })
)

/**
 * The workspace of an API key or of a signed-in person. An Authorization header decides: with one the
 * key alone counts (a bad key is not rescued by a cookie). The scheme handlers may both run for one
 * request (the second when the first fails), so the outcome is computed once per request.
 */
const NO_CREDENTIALS = new Unauthorized({
  message: "no credentials: send an API key (Authorization: Bearer brein_sk_…) or sign in (the brein_session cookie)",
  hint:
    "An operator creates a key with: brein keys create --workspace NAME, or a sign-in link with: brein users link --workspace NAME --email EMAIL"
})

/**
 * An API key or a signed-in person, whichever the request carries. An Authorization header decides: with
 * one the key alone counts (a bad key is not rescued by a cookie). The scheme handlers may both run for
 * one request (the second when the first fails), so the outcome is computed once per request.
 */
const keyOrSession = <A>(gate: Gate, session: ReturnType<typeof sessionOf>, of: {
  readonly key: (principal: Principal) => A
  readonly human: (human: Human) => A
}) => {
  const outcomes = new WeakMap<HttpServerRequest.HttpServerRequest, Exit.Exit<A, KeyOrSessionFailure>>()
  const resolve = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<A, KeyOrSessionFailure> => {
    if (request.headers["authorization"] !== undefined) {
      return Effect.map(gate.authenticateFrom(Option.getOrUndefined(request.remoteAddress), request.headers), of.key)
    }
    return cookieOf(request) === "" ? Effect.fail(NO_CREDENTIALS) : Effect.map(session(request, cookieOf(request)), of.human)
  }
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const known = outcomes.get(request)
    if (known !== undefined) return known
    return resolve(request).pipe(Effect.exit, Effect.tap((exit) => outcomes.set(request, exit)), Effect.flatten)
  })
}

/** The workspace of an API key or of a signed-in person. */
export const KeyOrSessionLive = Layer.effect(
  KeyOrSession,
  Effect.map(services, ({ csrf, gate, users }) => {
    const once = keyOrSession(gate, sessionOf(gate, users, csrf), { key: (principal) => principal, human: (human) => human.principal })
    return KeyOrSession.of({ bearer: () => once, session: () => once })
  })
)

/** Who a Work Session is for: the API key (key_…) or the signed-in person (usr_…), in their workspace. */
export const ChatPrincipalLive = Layer.effect(
  ChatPrincipal,
  Effect.map(services, ({ csrf, gate, users }) => {
    const once = keyOrSession<SessionActor>(gate, sessionOf(gate, users, csrf), {
      key: (principal) => ({ principal, owner: principal.keyId ?? "" }),
      human: (human) => ({ principal: human.principal, owner: human.userId })
    })
    return ChatPrincipal.of({ bearer: () => once, session: () => once })
  })
)
