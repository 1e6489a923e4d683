import { SqlClient, type Statement } from "@effect/sql"
import { Array as Arr, Clock, Duration, Effect, Option, ParseResult, Redacted, Schema } from "effect"
import { InvalidInput, SessionRequired, SignInLinkRefused } from "../../schema/Errors.ts"
import { Email, Human, User, UserId, UserSessionId } from "../../schema/humans/Human.ts"
import { WorkspaceId } from "../../schema/Ids.ts"
import { readableIssues } from "../../schema/Issues.ts"
import { Principal } from "../../schema/Principal.ts"
import { Plan } from "../../schema/tools/Definition.ts"
import { randomToken, sha256 } from "../Crypto.ts"
import { newId } from "../Ids.ts"
import { Workspaces } from "../workspace/Workspaces.ts"
import { PublicUrl } from "./PublicUrl.ts"

export const LINK_TTL = Duration.minutes(15)
export const SESSION_TTL = Duration.hours(12)
/** Link and cookie tokens are 32 random bytes in base64url: anything else is refused without a lookup. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/

export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", {
  email: Schema.String,
  message: Schema.String
}) {}

export const UserSummary = Schema.Struct({
  email: Schema.String,
  createdAt: Schema.DateFromSelf,
  disabledAt: Schema.NullOr(Schema.DateFromSelf),
  activeSessions: Schema.Int,
  lastSignInAt: Schema.NullOr(Schema.DateFromSelf)
})
export type UserSummary = typeof UserSummary.Type

export interface SignInLink {
  readonly url: string
  readonly expiresAt: Date
}

/** A session just opened: the cookie's token exists only here. */
export interface OpenedSession {
  readonly token: Redacted.Redacted<string>
  readonly human: Human
}

const decodeUsers = Schema.decodeUnknown(Schema.Array(User))
const decodeSummaries = Schema.decodeUnknown(Schema.Array(UserSummary))
const decodeSessionRow = Schema.decodeUnknown(
  Schema.Struct({
    userId: UserId,
    email: Schema.String,
    sessionId: UserSessionId,
    expiresAt: Schema.DateFromSelf,
    workspaceId: WorkspaceId,
    workspaceName: Schema.String,
    plan: Plan
  })
)
const LinkState = Schema.Struct({
  usedAt: Schema.NullOr(Schema.DateFromSelf),
  expiresAt: Schema.DateFromSelf,
  disabledAt: Schema.NullOr(Schema.DateFromSelf)
})
const decodeLinkStates = Schema.decodeUnknown(Schema.Array(LinkState))

const decodeEmail = (raw: string) =>
  Schema.decodeUnknown(Email)(raw).pipe(
    Effect.mapError((error) => InvalidInput.of(readableIssues(ParseResult.ArrayFormatter.formatErrorSync(error), "email")))
  )

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** The people of a workspace: one-time sign-in links and the browser sessions they open. */
export class Users extends Effect.Service<Users>()("brein/humans/Users", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const workspaces = yield* Workspaces
    const publicUrl = yield* Effect.orDie(PublicUrl)

    const workspaceOf = Effect.fn("Users.workspaceOf")(function* (name: string) {
      return yield* workspaces.principalFor(name)
    })

    const findUser = Effect.fn("Users.find")(function* (workspace: string, rawEmail: string) {
      const email = yield* decodeEmail(rawEmail)
      const principal = yield* workspaceOf(workspace)
      const rows = yield* sql`SELECT id, workspace_id, email, created_at, disabled_at FROM users
                              WHERE workspace_id = ${principal.workspaceId} AND email = ${email}`.pipe(
        Effect.flatMap(decodeUsers),
        Effect.orDie
      )
      return yield* Option.match(Arr.head(rows), {
        onNone: () =>
          Effect.fail(
            new UserNotFound({
              email,
              message:
                `no user ${email} in workspace "${workspace}" (create one with: brein users create --workspace ${workspace} --email ${email})`
            })
          ),
        onSome: Effect.succeed
      })
    })

    /** Creates the user if absent; answers the user and whether it is new. */
    const create = Effect.fn("Users.create")(function* (workspace: string, rawEmail: string) {
      const email = yield* decodeEmail(rawEmail)
      const principal = yield* workspaceOf(workspace)
      const id = yield* newId("usr")
      const at = yield* now
      const inserted = yield* sql`INSERT INTO users (id, workspace_id, email, created_at)
                                  VALUES (${id}, ${principal.workspaceId}, ${email}, ${at})
                                  ON CONFLICT (workspace_id, email) DO NOTHING RETURNING id`.pipe(Effect.orDie)
      const user = yield* findUser(workspace, email).pipe(Effect.catchTag("UserNotFound", (e) => Effect.dieMessage(e.message)))
      return { user, created: inserted.length > 0 } as const
    })

    /** A new one-time sign-in link for the user; only the hash of its token is stored. */
    const issueLink = Effect.fn("Users.issueLink")(function* (user: User) {
      const token = randomToken(32)
      const at = yield* now
      const expiresAt = new Date(at.getTime() + Duration.toMillis(LINK_TTL))
      yield* sql`INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at)
                 VALUES (${sha256(token)}, ${user.id}, ${at}, ${expiresAt})`.pipe(Effect.orDie)
      const url = new URL("auth/sign-in", `${publicUrl.href.replace(/\/?$/, "/")}`)
      url.searchParams.set("token", token)
      return { url: url.toString(), expiresAt } satisfies SignInLink
    })

    const refusal = Effect.fn("Users.refusal")(function* (tokenHash: string, at: Date) {
      const [link] = yield* sql`SELECT l.used_at, l.expires_at, u.disabled_at FROM sign_in_links l JOIN users u ON u.id = l.user_id
                                WHERE l.token_hash = ${tokenHash}`.pipe(Effect.flatMap(decodeLinkStates), Effect.orDie)
      if (link === undefined) return SignInLinkRefused.of("unknown")
      if (link.usedAt !== null) return SignInLinkRefused.of("used")
      // disabling expires the person's links at once: while disabled, that is the reason, not the link's age
      if (link.disabledAt !== null) return SignInLinkRefused.of("disabled")
      if (link.expiresAt.getTime() <= at.getTime()) return SignInLinkRefused.of("expired")
      return SignInLinkRefused.of("unknown")
    })

    const sessionById = Effect.fn("Users.sessionById")(function* (condition: Statement.Fragment, at: Date) {
      const rows = yield* sql`SELECT s.id AS session_id, s.expires_at, u.id AS user_id, u.email,
                                w.id AS workspace_id, w.name AS workspace_name, w.plan
                              FROM user_sessions s JOIN users u ON u.id = s.user_id JOIN workspaces w ON w.id = u.workspace_id
                              WHERE ${condition} AND s.revoked_at IS NULL AND s.expires_at > ${at} AND u.disabled_at IS NULL`
        .pipe(Effect.orDie)
      const row = Arr.head(rows)
      if (Option.isNone(row)) return Option.none<Human>()
      const decoded = yield* Effect.orDie(decodeSessionRow(row.value))
      const principal = new Principal({
        workspaceId: decoded.workspaceId,
        workspaceName: decoded.workspaceName,
        plan: decoded.plan,
        keyId: null
      })
      return Option.some(
        new Human({
          userId: decoded.userId,
          email: decoded.email,
          sessionId: decoded.sessionId,
          sessionExpiresAt: decoded.expiresAt,
          principal
        })
      )
    })

    /** Uses a sign-in link (once, before it expires) and opens a session; a refused link opens nothing. */
    const signIn = Effect.fn("Users.signIn")(
      function* (token: string) {
        if (!TOKEN_SHAPE.test(token)) return yield* SignInLinkRefused.of("unknown")
        const tokenHash = sha256(token)
        const at = yield* now
        const used = yield* sql<{ readonly userId: string }>`UPDATE sign_in_links l SET used_at = ${at}
            FROM users u WHERE u.id = l.user_id AND l.token_hash = ${tokenHash}
              AND l.used_at IS NULL AND l.expires_at > ${at} AND u.disabled_at IS NULL
            RETURNING l.user_id`.pipe(Effect.orDie)
        const userId = Arr.head(used)
        if (Option.isNone(userId)) return yield* Effect.flip(refusal(tokenHash, at))
        const sessionToken = randomToken(32)
        const sessionId = yield* newId("sess")
        const expiresAt = new Date(at.getTime() + Duration.toMillis(SESSION_TTL))
        yield* sql`INSERT INTO user_sessions (id, token_hash, user_id, created_at, expires_at)
                   VALUES (${sessionId}, ${sha256(sessionToken)}, ${userId.value.userId}, ${at}, ${expiresAt})`.pipe(Effect.orDie)
        const human = yield* sessionById(sql`s.id = ${sessionId}`, at).pipe(
          Effect.flatMap(Effect.orDieWith(() => `session ${sessionId} vanished`))
        )
        return { token: Redacted.make(sessionToken), human } satisfies OpenedSession
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    /** The person whose session a cookie holds: refused when unknown, expired, revoked or the user is disabled. */
    const resolve = Effect.fn("Users.resolve")(function* (token: string) {
      if (token === "") return yield* SessionRequired.of("sign in first: the request has no brein_session cookie")
      const refused = SessionRequired.of("the session is unknown, expired or signed out: sign in again")
      if (!TOKEN_SHAPE.test(token)) return yield* refused
      const human = yield* sessionById(sql`s.token_hash = ${sha256(token)}`, yield* now)
      return yield* Option.match(human, { onNone: () => Effect.fail(refused), onSome: Effect.succeed })
    })

    const signOut = Effect.fn("Users.signOut")(function* (sessionId: UserSessionId) {
      yield* sql`UPDATE user_sessions SET revoked_at = ${yield* now} WHERE id = ${sessionId} AND revoked_at IS NULL`.pipe(Effect.orDie)
    })

    const list = Effect.fn("Users.list")(function* (workspace: string) {
      const principal = yield* workspaceOf(workspace)
      const at = yield* now
      return yield* sql`SELECT u.email, u.created_at, u.disabled_at,
            (SELECT count(*)::int FROM user_sessions s WHERE s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > ${at})
              AS active_sessions,
            (SELECT max(s.created_at) FROM user_sessions s WHERE s.user_id = u.id) AS last_sign_in_at
          FROM users u WHERE u.workspace_id = ${principal.workspaceId} ORDER BY u.email`.pipe(
        Effect.flatMap(decodeSummaries),
        Effect.orDie
      )
    })

    /**
     * Disables a person: every session they have open ends and every link not used yet expires, now; no
     * new link signs them in while they stay disabled. Answers whether they were enabled before and how
     * many sessions ended.
     */
    const disable = Effect.fn("Users.disable")(
      function* (user: User) {
        const at = yield* now
        const changed = yield* sql`UPDATE users SET disabled_at = ${at} WHERE id = ${user.id} AND disabled_at IS NULL RETURNING id`
        const ended = yield* sql`UPDATE user_sessions SET revoked_at = ${at}
                                 WHERE user_id = ${user.id} AND revoked_at IS NULL AND expires_at > ${at} RETURNING id`
        yield* sql`UPDATE sign_in_links SET expires_at = ${at} WHERE user_id = ${user.id} AND used_at IS NULL AND expires_at > ${at}`
        return { disabled: changed.length > 0, sessionsEnded: ended.length } as const
      },
      sql.withTransaction,
      Effect.orDie
    )

    /** Lets a disabled person sign in again, with a new link: what was ended when they were disabled stays ended. */
    const enable = Effect.fn("Users.enable")(function* (user: User) {
      const changed = yield* sql`UPDATE users SET disabled_at = NULL WHERE id = ${user.id} AND disabled_at IS NOT NULL RETURNING id`.pipe(
        Effect.orDie
      )
      return { enabled: changed.length > 0 } as const
    })

    return { publicUrl, create, find: findUser, issueLink, signIn, resolve, signOut, list, disable, enable } as const
  }),
  dependencies: [Workspaces.Default]
}) {}
