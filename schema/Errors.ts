import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { TOOL_ID_MAX } from "./Ids.ts"
import { type Issue, MAX_ISSUES, summary } from "./Issues.ts"

const MAX_ID_SHOWN = 64
import { NextAction } from "./tools/Response.ts"

export const HttpAction = Schema.Struct({
  method: Schema.Literal("GET", "POST", "PATCH", "DELETE"),
  path: Schema.String,
  reason: Schema.String
}).annotations({ identifier: "HttpAction", description: "An HTTP request that resolves the error" })
export type HttpAction = typeof HttpAction.Type

/** What a caller can do about an error: the same `hint` and `next_actions` a successful answer carries. */
export const Guidance = {
  hint: Schema.optionalWith(Schema.String, { exact: true }),
  next_actions: Schema.optionalWith(Schema.Array(Schema.Union(NextAction, HttpAction)), { exact: true })
}
export interface Guidance {
  readonly hint?: string
  readonly next_actions?: ReadonlyArray<NextAction | HttpAction>
}

export class ToolNotFound extends Schema.TaggedError<ToolNotFound>()(
  "ToolNotFound",
  { toolId: Schema.String, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 404 })
) {
  /**
   * The id as sent, escaped (JSON) and clipped: a malformed id is named, never echoed whole. `near`
   * is the id of a tool the caller can reach that it probably meant.
   */
  static of(toolId: string, near?: string) {
    const shown = toolId.length > MAX_ID_SHOWN ? `${toolId.slice(0, MAX_ID_SHOWN)}…` : toolId
    const quoted = JSON.stringify(shown)
    return new ToolNotFound({
      toolId: shown,
      message: toolId.length > MAX_ID_SHOWN
        ? `no tool with id ${quoted} (${toolId.length.toLocaleString("en-US")} characters; a tool id is at most ${TOOL_ID_MAX})`
        : `no tool with id ${quoted}`,
      ...(near === undefined ? {} : { hint: `Did you mean ${near}?` })
    })
  }
}

export const InputIssue = Schema.Struct({ path: Schema.String, message: Schema.String })

export class InvalidInput extends Schema.TaggedError<InvalidInput>()(
  "InvalidInput",
  {
    message: Schema.String,
    issues: Schema.Array(InputIssue).annotations({ description: `At most ${MAX_ISSUES}; the message counts the rest` }),
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 422 })
) {
  /** At most MAX_ISSUES issues; `total` (when more were found than are listed) is counted in the message. */
  static of(issues: ReadonlyArray<Issue>, total: number = issues.length) {
    return new InvalidInput({ message: summary(issues, Math.max(total, issues.length)), issues: issues.slice(0, MAX_ISSUES) })
  }
}

export class Unauthorized extends Schema.TaggedError<Unauthorized>()(
  "Unauthorized",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 401 })
) {}

export const ForbiddenReason = Schema.Literal(
  "plan_required",
  "connection_required",
  "connection_not_in_workspace",
  "connection_wrong_connector",
  "in_process_only",
  "origin_not_allowed"
)

const CONNECTIONS = "/api/v1/connections"
const listConnections: HttpAction = { method: "GET", path: CONNECTIONS, reason: "list this workspace's connections and their ids" }

export class Forbidden extends Schema.TaggedError<Forbidden>()(
  "Forbidden",
  { reason: ForbiddenReason, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 403 })
) {
  static planRequired(what: string, workspace: string) {
    return new Forbidden({
      reason: "plan_required",
      message: `${what} needs a paid workspace; "${workspace}" is on the free plan`,
      hint: `Use a key of a workspace on the paid plan; an operator creates one with: brein keys create --workspace NAME --plan paid`
    })
  }

  /** A workspace moved to the free plan keeps its connections to read and delete, not to log in with new credentials. */
  static credentialsPlanRequired(connectionId: string, workspace: string) {
    const refused = Forbidden.planRequired("replacing a connection's credentials", workspace)
    return new Forbidden({
      reason: refused.reason,
      message: refused.message,
      hint:
        `${refused.hint}. On the free plan the connection can still be read and deleted with its cached data (DELETE ${CONNECTIONS}/${connectionId})`,
      next_actions: [{
        method: "DELETE",
        path: `${CONNECTIONS}/${connectionId}`,
        reason: "delete the connection with its cached data and jobs"
      }]
    })
  }

  static connectionRequired(toolId: string, connector: string) {
    return new Forbidden({
      reason: "connection_required",
      message: `${toolId} needs a ${connector} connection: send its id in the X-Connect-Connection header`,
      hint:
        `Create a ${connector} connection (POST ${CONNECTIONS}) or pick one from GET ${CONNECTIONS}, then send its id in X-Connect-Connection (over MCP, the connection argument works too)`,
      next_actions: [
        { method: "POST", path: CONNECTIONS, reason: `create a ${connector} connection with the user's credentials` },
        listConnections
      ]
    })
  }

  static connectionNotInWorkspace(connectionId: string) {
    return new Forbidden({
      reason: "connection_not_in_workspace",
      message: `connection ${connectionId} does not belong to this workspace`,
      next_actions: [listConnections]
    })
  }

  static wrongConnector(connectionId: string, actual: string, expected: string) {
    return new Forbidden({
      reason: "connection_wrong_connector",
      message: `connection ${connectionId} is a ${actual} connection, not ${expected}`,
      hint: `Send the id of a ${expected} connection`,
      next_actions: [listConnections]
    })
  }

  static origin(origin: string) {
    return new Forbidden({
      reason: "origin_not_allowed",
      message: `requests from ${origin} are not allowed`,
      hint: "An operator allows an origin or host by adding it to BREIN_ALLOWED_ORIGINS (a comma-separated list)"
    })
  }
}

export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()(
  "PayloadTooLarge",
  { message: Schema.String, limitBytes: Schema.Int },
  HttpApiSchema.annotations({ status: 413 })
) {}

export class RateLimited extends Schema.TaggedError<RateLimited>()(
  "RateLimited",
  { message: Schema.String, retryAfterSeconds: Schema.Int },
  HttpApiSchema.annotations({ status: 429 })
) {}

export class AuditUnavailable extends Schema.TaggedError<AuditUnavailable>()(
  "AuditUnavailable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

export class ToolFailed extends Schema.TaggedError<ToolFailed>()(
  "ToolFailed",
  { toolId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}

export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 415 })
) {
  /** `accepted`: what the route takes, as said to the caller (JSON everywhere but where a form is posted). */
  static of(contentType: string | undefined, accepted = "JSON: send it with Content-Type: application/json") {
    return new UnsupportedMediaType({
      message: `the request body must be ${accepted}${
        contentType === undefined ? " (none was sent)" : `, not ${contentType.slice(0, 100)}`
      }`
    })
  }

  /** A body declared in a character set other than UTF-8, the one every body is read in. */
  static charset(charset: string) {
    return new UnsupportedMediaType({
      message: `the request body must be UTF-8 (charset=utf-8, or no charset), not charset=${JSON.stringify(charset.slice(0, 40))}`
    })
  }
}

export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()(
  "RouteNotFound",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 404 })
) {}

export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()(
  "MethodNotAllowed",
  { message: Schema.String, allowed: Schema.Array(Schema.String) },
  HttpApiSchema.annotations({ status: 405 })
) {}

export class RecordNotFound extends Schema.TaggedError<RecordNotFound>()(
  "RecordNotFound",
  {
    kind: Schema.Literal("company", "person", "list", "directory", "supplier", "unit", "opportunity", "market_dataset", "connection")
      .annotations({
        description: "What was looked for"
      }),
    ids: Schema.Array(Schema.String).annotations({ description: "The ids not found (at most 20 shown)" }),
    message: Schema.String,
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of(kind: RecordNotFound["kind"], ids: ReadonlyArray<string>, guidance: Guidance = {}, detail?: string) {
    const shown = ids.slice(0, 20)
    const more = ids.length > shown.length ? ` and ${ids.length - shown.length} more` : ""
    return new RecordNotFound({
      kind,
      ids: shown,
      message: `no ${kind} ${shown.map((id) => JSON.stringify(id)).join(", ")}${more}${detail === undefined ? "" : `: ${detail}`}`,
      ...guidance
    })
  }
}

export class InternalError extends Schema.TaggedError<InternalError>()(
  "InternalError",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {
  static readonly unexpected = new InternalError({ message: "the server failed unexpectedly; the failure is logged" })
}

export class BadRequest extends Schema.TaggedError<BadRequest>()(
  "BadRequest",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()(
  "ServiceUnavailable",
  {
    message: Schema.String,
    retryAfterSeconds: Schema.Int.annotations({ description: "Try again after this many seconds (also sent as Retry-After)" })
  },
  HttpApiSchema.annotations({ status: 503 })
) {
  static readonly database = new ServiceUnavailable({
    message: "the database is unreachable or restarting; nothing was changed by this request: try again shortly",
    retryAfterSeconds: 2
  })
  /** The server is stopping: it answers nothing more (another instance, or this one restarted, will). */
  static readonly stopping = new ServiceUnavailable({
    message: "the server is stopping; nothing was changed by this request: try again shortly",
    retryAfterSeconds: 2
  })
  /** The server's credentials key cannot be used (missing beside sealed credentials, or not a key): its operator must fix it. */
  static readonly credentialsKey = new ServiceUnavailable({
    message:
      "the server cannot encrypt credentials: its credentials key cannot be used (the server's log says why and how its operator fixes it); nothing was stored: try again once it is fixed",
    retryAfterSeconds: 60
  })
}

const USAGE: HttpAction = { method: "GET", path: "/api/v1/usage", reason: "see the workspace's credits and hourly reads" }

export class ReadCeilingReached extends Schema.TaggedError<ReadCeilingReached>()(
  "ReadCeilingReached",
  {
    message: Schema.String,
    limit: Schema.Int.annotations({ description: "Reads a workspace on this plan may make in any hour" }),
    used: Schema.Int,
    resetsAt: Schema.String.annotations({ description: "When the oldest read of the window leaves it (ISO-8601)" }),
    retryAfterSeconds: Schema.Int.annotations({ description: "Try again after this many seconds (also sent as Retry-After)" }),
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 429 })
) {}

export const QuoteRefusal = Schema.Literal("missing", "unknown", "expired", "used", "mismatch", "not_affordable")

export class QuoteRefused extends Schema.TaggedError<QuoteRefused>()(
  "QuoteRefused",
  { reason: QuoteRefusal, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 409 })
) {
  static of(reason: typeof QuoteRefusal.Type, message: string, toolId: string) {
    return new QuoteRefused({
      reason,
      message,
      hint: `Call ${toolId} without confirm to get a new quote (it changes nothing), then call it again with confirm: true, ` +
        "that quote_token and a fresh idempotency_key",
      next_actions: [{ tool: toolId, reason: "get a new quote: the same input without confirm, quote_token or idempotency_key" }]
    })
  }
}

export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()(
  "IdempotencyConflict",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 409 })
) {}

export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()(
  "InsufficientCredits",
  { message: Schema.String, balance: Schema.Int, required: Schema.Int, ...Guidance },
  HttpApiSchema.annotations({ status: 402 })
) {
  static of(balance: number, required: number) {
    return new InsufficientCredits({
      message: `this needs ${required} credits and the workspace has ${balance}; nothing was charged or delivered`,
      balance,
      required,
      hint: "Ask an operator for credits (brein credits grant --workspace NAME N), or quote fewer items",
      next_actions: [USAGE]
    })
  }
}

const SIGN_IN_HINT = "Ask an operator for a new sign-in link: brein users link --workspace NAME --email EMAIL"

/** An unsubscribe link this server did not make, or made for a person the sequence no longer has. */
export class UnsubscribeLinkUnknown extends Schema.TaggedError<UnsubscribeLinkUnknown>()(
  "UnsubscribeLinkUnknown",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 404 })
) {
  static of() {
    return new UnsubscribeLinkUnknown({
      message: "this unsubscribe link is not valid: it was altered, or its sequence or person is gone; nothing was changed",
      hint: "Open the link exactly as the message has it, or reply to the message asking to be removed"
    })
  }
}

/** An unsubscribe that could not be committed (the database is away): nothing was changed, and the link works later. */
export class UnsubscribeUnavailable extends Schema.TaggedError<UnsubscribeUnavailable>()(
  "UnsubscribeUnavailable",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 503 })
) {
  static of() {
    return new UnsubscribeUnavailable({
      message: "the unsubscribe could not be recorded now; nothing was changed",
      hint: "Open the link again in a few minutes and confirm, or reply to the message asking to be removed"
    })
  }
}

export const SignInRefusal = Schema.Literal("unknown", "used", "expired", "disabled")

export class SignInLinkRefused extends Schema.TaggedError<SignInLinkRefused>()(
  "SignInLinkRefused",
  { reason: SignInRefusal, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 401 })
) {
  static of(reason: typeof SignInRefusal.Type) {
    const messages = {
      unknown: "this sign-in link is not valid; no session was opened",
      used: "this sign-in link was already used (a link signs in once); no session was opened",
      expired: "this sign-in link has expired (a link lasts 15 minutes); no session was opened",
      disabled: "this user is disabled; no session was opened"
    } as const
    return new SignInLinkRefused({ reason, message: messages[reason], hint: SIGN_IN_HINT })
  }
}

export class HumanRequired extends Schema.TaggedError<HumanRequired>()(
  "HumanRequired",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 403 })
) {
  static readonly keyPresent = new HumanRequired({
    message:
      "this action needs a signed-in person: the request carries an Authorization header, and an API key, an agent or an MCP client is never a person",
    hint:
      `Send the request from a signed-in browser session (the brein_session cookie and X-CSRF-Token) without an Authorization header. ${SIGN_IN_HINT}`
  })
}

export class SessionRequired extends Schema.TaggedError<SessionRequired>()(
  "SessionRequired",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 401 })
) {
  static of(message: string) {
    return new SessionRequired({ message, hint: `Open a sign-in link to get a brein_session cookie. ${SIGN_IN_HINT}` })
  }
}

export class CsrfRejected extends Schema.TaggedError<CsrfRejected>()(
  "CsrfRejected",
  { message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 403 })
) {
  static of(missing: boolean) {
    return new CsrfRejected({
      message: missing
        ? "a request that changes something with the session cookie needs the X-CSRF-Token header"
        : "the X-CSRF-Token header does not match this session",
      hint: "Read csrf_token from GET /api/v1/me (or the sign-in answer) and send it as X-CSRF-Token",
      next_actions: [{ method: "GET", path: "/api/v1/me", reason: "read this session's CSRF token" }]
    })
  }
}

export const ActivationRefusal = Schema.Literal("not_draft", "version_mismatch", "no_preflight", "preflight_stale", "preflight_blocked")

export class ActivationRefused extends Schema.TaggedError<ActivationRefused>()(
  "ActivationRefused",
  {
    reason: ActivationRefusal,
    message: Schema.String,
    sequenceId: Schema.String,
    version: Schema.Int.annotations({ description: "The sequence's current version" }),
    preflightId: Schema.optionalWith(Schema.String, { exact: true }),
    blockers: Schema.optionalWith(Schema.Array(Schema.Unknown), { exact: true }).annotations({
      description: "The blockers of the latest preflight, as it reported them"
    }),
    ...Guidance
  },
  HttpApiSchema.annotations({ status: 409 })
) {}

export const CursorRejection = Schema.Literal("tampered", "foreign_workspace", "stale", "other_search").annotations({
  description: "tampered: altered or not made here; foreign_workspace: issued to another workspace; " +
    "stale: older than 30 minutes, dated ahead of this server's clock, or the data set was reloaded since; other_search: made by a search with other filters"
})
export type CursorRejection = typeof CursorRejection.Type

const CURSOR_PROBLEM: Record<CursorRejection, string> = {
  tampered: "the cursor was altered or was not issued by this service",
  foreign_workspace: "the cursor was issued to another workspace",
  stale:
    "the cursor expired (cursors live 30 minutes), is dated ahead of this server's clock, or the data set was reloaded since it was issued",
  other_search: "the cursor belongs to a search with other filters"
}

/** A sealed cursor refused: the search starts again from its first page. */
export class CursorRejected extends Schema.TaggedError<CursorRejected>()(
  "CursorRejected",
  { reason: CursorRejection, message: Schema.String, ...Guidance },
  HttpApiSchema.annotations({ status: 400 })
) {
  static of(reason: CursorRejection, toolId: string) {
    return new CursorRejected({
      reason,
      message: `${CURSOR_PROBLEM[reason]}: start again from the first page (the same filters without cursor)`,
      hint: `Call ${toolId} again without cursor, then follow the cursors it answers`,
      next_actions: [{ tool: toolId, reason: "start again from the first page: the same filters without cursor" }]
    })
  }
}
