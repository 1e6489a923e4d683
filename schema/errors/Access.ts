import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Guidance, type HttpAction } from "./Guidance.ts"

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

const SIGN_IN_HINT = "Ask an operator for a new sign-in link: brein users link --workspace NAME --email EMAIL"

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
