import { Context, Schema } from "effect"
import { maxLength } from "../Length.ts"
import { Principal } from "../Principal.ts"

export const EMAIL_MAX = 254

/** An email address as a user types it: trimmed and lower-cased before it is checked. */
export const Email = Schema.Trim.pipe(
  Schema.compose(Schema.Lowercase),
  Schema.compose(
    Schema.String.pipe(
      maxLength(EMAIL_MAX, { message: () => `must be at most ${EMAIL_MAX} characters` }),
      Schema.pattern(/^[^\s@"<>()[\],;:]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/, {
        message: () => "must be an email address like ana@example.com"
      })
    )
  )
).annotations({ identifier: "Email", description: "An email address (compared lower-cased)" })

export const UserId = Schema.String.pipe(Schema.pattern(/^usr_[A-Za-z0-9]+$/), Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const UserSessionId = Schema.String.pipe(Schema.pattern(/^sess_[A-Za-z0-9]+$/), Schema.brand("UserSessionId"))
export type UserSessionId = typeof UserSessionId.Type

/** A person of a workspace, who signs in with a one-time link. Never an API key, an agent or an MCP client. */
export class User extends Schema.Class<User>("User")({
  id: UserId,
  workspaceId: Schema.String,
  email: Schema.String,
  createdAt: Schema.DateFromSelf,
  disabledAt: Schema.NullOr(Schema.DateFromSelf)
}) {}

/** A signed-in person: the session a browser's cookie opened, and the workspace it acts in. */
export class Human extends Schema.Class<Human>("Human")({
  userId: UserId,
  email: Schema.String,
  sessionId: UserSessionId,
  sessionExpiresAt: Schema.DateFromSelf,
  principal: Principal
}) {}

/**
 * The person behind a request. Only the cookie session middleware provides it, so an action that
 * needs a human (activating a sequence) cannot run for an API key, an agent or an MCP client.
 */
export class CurrentHuman extends Context.Tag("brein/humans/CurrentHuman")<CurrentHuman, Human>() {}
