import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context, Schema } from "effect"
import { ServiceUnavailable } from "../Errors.ts"
import { MAX_INT4 } from "../Int4.ts"
import { ModelNotConfigured } from "../luna/LunaErrors.ts"
import { SessionView } from "../luna/Projection.ts"
import { CreateSessionBody, MessageBody, TurnInProgress, WorkSession, WorkSessionNotFound } from "../luna/Session.ts"
import type { Principal } from "../Principal.ts"
import { SESSION_COOKIE } from "./Humans.ts"
import { KeyOrSessionFailure } from "./Humans.ts"
import { QueryInteger, QueryParam } from "./QueryInteger.ts"

/** Who a Work Session request acts for: the workspace, and the API key or signed-in user the session belongs to. */
export interface SessionActor {
  readonly principal: Principal
  /** key_… for an API key, usr_… for a signed-in person */
  readonly owner: string
}
export class CurrentActor extends Context.Tag("brein/http/CurrentActor")<CurrentActor, SessionActor>() {}

/** An API key (bearer) or a signed-in person (cookie, with X-CSRF-Token on a POST): a session belongs to exactly one of them. */
export class ChatPrincipal extends HttpApiMiddleware.Tag<ChatPrincipal>()("brein/http/ChatPrincipal", {
  failure: KeyOrSessionFailure,
  provides: CurrentActor,
  security: { bearer: HttpApiSecurity.bearer, session: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }) }
}) {}

export const SessionIdParam = Schema.Struct({ id: Schema.String })

const EventId = QueryInteger(0, MAX_INT4).annotations({ description: "The seq of the last event the client saw" })

export const ResumeHeaders = Schema.Struct({
  "last-event-id": Schema.optional(EventId).annotations({ description: "Resume after this event (the SSE id of the last event seen)" })
})

export const ResumeParams = Schema.Struct({
  after: Schema.optional(EventId).annotations({ description: "Resume after this event (when a client cannot set Last-Event-ID)" })
})

/** The most turns a page of a session's view holds. */
export const TURNS_MAX = 1000

export const ViewParams = Schema.Struct({
  turns: Schema.optional(QueryInteger(1, TURNS_MAX)).annotations({
    description: "Only the latest this many turns (before `before` when given); every turn when left out"
  }),
  before: Schema.optional(QueryParam.pipe(Schema.pattern(/^turn_[A-Za-z0-9_]+$/, {
    message: (issue) => `must be a turn's id (turn_…), got ${JSON.stringify(issue.actual).slice(0, 80)}`
  }))).annotations({ description: "Only the turns that started before this one (its turn_id): the page before the one shown" })
})

const EventStream = Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/event-stream" })).annotations({
  description: "Server-sent events: `id` is the event's seq, `event` its type, `data` the event as JSON (schema LunaEvent); " +
    "a session's stream that the server's stop cut short ends with a `stream.resume` frame (schema StreamResume) whose id is " +
    "the seq to resume after"
})

export class SessionsGroup extends HttpApiGroup.make("sessions")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/sessions")
      .setPayload(CreateSessionBody)
      .addSuccess(WorkSession, { status: 201 })
      .annotate(OpenApi.Summary, "Open a Luna Work Session for this API key or signed-in person")
  )
  .add(
    HttpApiEndpoint.get("view", "/api/v1/sessions/:id")
      .setPath(SessionIdParam)
      .setUrlParams(ViewParams)
      .addSuccess(SessionView)
      .addError(WorkSessionNotFound)
      .annotate(OpenApi.Summary, "The session as the chat shows it: its turns, tool parts and outcomes, projected from the log")
  )
  .add(
    HttpApiEndpoint.post("message", "/api/v1/sessions/:id/messages")
      .setPath(SessionIdParam)
      .setPayload(MessageBody)
      .addSuccess(EventStream)
      .addError(WorkSessionNotFound)
      .addError(TurnInProgress)
      .addError(ModelNotConfigured)
      .addError(ServiceUnavailable)
      .annotate(OpenApi.Summary, "Start a turn; the response streams its events (text/event-stream) until the turn ends")
  )
  .add(
    HttpApiEndpoint.get("events", "/api/v1/sessions/:id/events")
      .setPath(SessionIdParam)
      .setHeaders(ResumeHeaders)
      .setUrlParams(ResumeParams)
      .addSuccess(EventStream)
      .addError(WorkSessionNotFound)
      .annotate(OpenApi.Summary, "The session's events (text/event-stream), resumable from Last-Event-ID, then live")
  )
  .middleware(ChatPrincipal)
{}
