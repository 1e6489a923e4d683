import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { bodyOptional, EmptyBody } from "../Body.ts"
import { SequenceConflict, SequenceNotFound, SequenceStatusChange } from "../catalog/SequenceErrors.ts"
import {
  ActivationRefused,
  AuditUnavailable,
  CsrfRejected,
  HumanRequired,
  RateLimited,
  SessionRequired,
  SignInLinkRefused,
  Unauthorized
} from "../Errors.ts"
import { ActivateBody, SequenceAuthorization } from "../humans/Authorization.ts"
import { CurrentHuman } from "../humans/Human.ts"
import { QueryParam } from "./QueryInteger.ts"
import { CurrentPrincipal } from "./Security.ts"

export const SESSION_COOKIE = "brein_session"
export const CSRF_HEADER = "x-csrf-token"

const session = HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }).pipe(
  HttpApiSecurity.annotate(OpenApi.Description, "The session cookie a sign-in link sets; state-changing requests also send X-CSRF-Token")
)

/**
 * A signed-in person, from the session cookie only. Fails closed: a request that carries an
 * Authorization header (an API key, an agent, an MCP client) is refused even with a valid cookie.
 */
export const HumanSessionFailure = Schema.Union(SessionRequired, HumanRequired, CsrfRejected, RateLimited)
export type HumanSessionFailure = typeof HumanSessionFailure.Type

export class HumanSession extends HttpApiMiddleware.Tag<HumanSession>()("brein/http/HumanSession", {
  failure: HumanSessionFailure,
  provides: CurrentHuman,
  security: { session }
}) {}

/** The workspace of an API key (bearer) or of a signed-in person (cookie): for reading what both may read. */
export const KeyOrSessionFailure = Schema.Union(Unauthorized, SessionRequired, CsrfRejected, RateLimited)
export type KeyOrSessionFailure = typeof KeyOrSessionFailure.Type

export class KeyOrSession extends HttpApiMiddleware.Tag<KeyOrSession>()("brein/http/KeyOrSession", {
  failure: KeyOrSessionFailure,
  provides: CurrentPrincipal,
  security: { bearer: HttpApiSecurity.bearer, session }
}) {}

export const SessionInfo = Schema.Struct({
  user: Schema.Struct({ id: Schema.String, email: Schema.String }),
  workspace: Schema.Struct({ id: Schema.String, name: Schema.String }),
  session: Schema.Struct({ expires_at: Schema.String.annotations({ description: "When the session ends (ISO-8601)" }) }),
  csrf_token: Schema.String.annotations({ description: "Send as X-CSRF-Token on every state-changing request made with the cookie" })
}).annotations({ identifier: "SessionInfo" })
export type SessionInfo = typeof SessionInfo.Type

export const SignInParams = Schema.Struct({
  token: QueryParam.annotations({ description: "The one-time token of the sign-in link" })
})

export const SignedOut = Schema.Struct({ signed_out: Schema.Literal(true) })

export class HumansGroup extends HttpApiGroup.make("humans")
  .add(
    HttpApiEndpoint.get("signIn", "/auth/sign-in")
      .setUrlParams(SignInParams)
      .addSuccess(SessionInfo)
      .addError(SignInLinkRefused)
      .annotate(OpenApi.Summary, "Open a session with a one-time sign-in link; sets the brein_session cookie")
  )
  .add(
    HttpApiEndpoint.get("me", "/api/v1/me")
      .addSuccess(SessionInfo)
      .middleware(HumanSession)
      .annotate(OpenApi.Summary, "The signed-in person, their workspace, the session's expiry and its CSRF token")
  )
  .add(
    HttpApiEndpoint.post("signOut", "/auth/sign-out")
      .setPayload(EmptyBody)
      .addSuccess(SignedOut)
      .middleware(HumanSession)
      .annotate(OpenApi.Summary, "End the session (cookie and X-CSRF-Token)")
      .annotate(OpenApi.Transform, bodyOptional)
  )
{}

export const SequenceIdParam = Schema.Struct({ id: Schema.String })

/** A person's pause or resume of a sequence: the same route, answer and refusals for both. */
const statusChange = <Name extends "pause" | "resume">(name: Name, summary: string) =>
  HttpApiEndpoint.post(name, `/api/v1/sequences/:id/${name}`)
    .setPath(SequenceIdParam)
    .setPayload(EmptyBody)
    .addSuccess(SequenceStatusChange)
    .addError(SequenceNotFound)
    .addError(SequenceConflict)
    .addError(AuditUnavailable)
    .middleware(HumanSession)
    .annotate(OpenApi.Summary, summary)
    .annotate(OpenApi.Transform, bodyOptional)

export class SequenceAuthorizationsGroup extends HttpApiGroup.make("sequenceAuthorizations")
  .add(
    HttpApiEndpoint.post("activate", "/api/v1/sequences/:id/activate")
      .setPath(SequenceIdParam)
      .setPayload(ActivateBody)
      .addSuccess(SequenceAuthorization)
      .addError(SequenceNotFound)
      .addError(ActivationRefused)
      .addError(AuditUnavailable)
      .middleware(HumanSession)
      .annotate(
        OpenApi.Summary,
        "Activate a sequence: a signed-in person only (never an API key), on the version they reviewed and a preflight without blockers"
      )
  )
  .add(statusChange(
    "pause",
    "Pause an active sequence: a signed-in person only; nothing more is sent (a send already handed to the mailbox finishes) until it is resumed"
  ))
  .add(statusChange(
    "resume",
    "Resume a paused sequence: a signed-in person only; steps that fell due while it was paused are sent, at the mailbox's spacing"
  ))
  .add(
    HttpApiEndpoint.get("authorizations", "/api/v1/sequences/:id/authorizations")
      .setPath(SequenceIdParam)
      .addSuccess(Schema.Struct({ authorizations: Schema.Array(SequenceAuthorization) }))
      .addError(SequenceNotFound)
      .middleware(KeyOrSession)
      .annotate(OpenApi.Summary, "The authorization ledger of a sequence: who activated which version, when, on which preflight")
  )
{}
