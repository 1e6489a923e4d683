import { assert, layer } from "@effect/vitest"
import { Effect, Redacted, TestClock, TestContext } from "effect"
import { Csrf } from "../../../services/humans/Csrf.ts"
import { Users } from "../../../services/humans/Users.ts"
import { SUITE_NOW } from "../../support/SuiteClock.ts"
import { HumansTest, newWorkspace } from "./HumansTest.ts"

const cookieValue = (token: Redacted.Redacted<string>) => Redacted.value(token)
const tokenOf = (url: string) => new URL(url).searchParams.get("token") ?? ""

/** A user of a new workspace and a fresh sign-in link for them. */
const person = (email = "ana@acme.cl") =>
  Effect.gen(function* () {
    const users = yield* Users
    const workspace = yield* newWorkspace
    const { user } = yield* users.create(workspace.name, email)
    const link = yield* users.issueLink(user)
    return { users, workspace, user, link, token: tokenOf(link.url) }
  })

layer(HumansTest, { excludeTestServices: true })("Users", (it) => {
  it.effect("create trims and lower-cases the email, is idempotent, and refuses a bad email with its path or an unknown workspace", () =>
    Effect.gen(function* () {
      const users = yield* Users
      const workspace = yield* newWorkspace
      const first = yield* users.create(workspace.name, "  Ana.Perez@Acme.CL ")
      assert.isTrue(first.created)
      assert.strictEqual(first.user.email, "ana.perez@acme.cl")
      const again = yield* users.create(workspace.name, "ana.perez@acme.cl")
      assert.isFalse(again.created)
      assert.strictEqual(again.user.id, first.user.id)

      const bad = yield* Effect.flip(users.create(workspace.name, "ana at acme"))
      assert.strictEqual(bad._tag, "InvalidInput")
      assert.deepStrictEqual(bad._tag === "InvalidInput" ? bad.issues.map((i) => i.path) : [], ["email"])
      assert.include(bad.message, "must be an email address like ana@example.com")

      const nowhere = yield* Effect.flip(users.create("no-such-workspace", "ana@acme.cl"))
      assert.strictEqual(nowhere._tag, "WorkspaceNotFound")
      const missing = yield* Effect.flip(users.find(workspace.name, "beto@acme.cl"))
      assert.strictEqual(missing._tag, "UserNotFound")
      assert.deepStrictEqual((yield* users.list(workspace.name)).map((u) => [u.email, u.activeSessions]), [["ana.perez@acme.cl", 0]])
    }))

  it.effect("a link signs in once: its URL starts with the public URL, the second use and an unknown token are refused", () =>
    Effect.gen(function* () {
      const { link, token, user, users, workspace } = yield* person()
      assert.match(link.url, /^http:\/\/127\.0\.0\.1:\d+\/auth\/sign-in\?token=[A-Za-z0-9_-]{43}$/)
      const opened = yield* users.signIn(token)
      assert.strictEqual(opened.human.userId, user.id)
      assert.strictEqual(opened.human.principal.workspaceId, workspace.id)
      assert.isNull(opened.human.principal.keyId)

      const again = yield* Effect.flip(users.signIn(token))
      assert.deepInclude(again, { _tag: "SignInLinkRefused", reason: "used" })
      const unknown = yield* Effect.flip(users.signIn(token.replace(/^./, (c) => (c === "A" ? "B" : "A"))))
      assert.deepInclude(unknown, { _tag: "SignInLinkRefused", reason: "unknown" })
      assert.deepInclude(yield* Effect.flip(users.signIn("short")), { reason: "unknown" })
      assert.strictEqual((yield* users.list(workspace.name))[0]?.activeSessions, 1)
    }))

  it.effect("a link expires 15 minutes after it is issued, by the clock (TestClock)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { token, user, users } = yield* person()
      const fresh = yield* users.issueLink(user)
      yield* TestClock.adjust("14 minutes")
      yield* users.signIn(tokenOf(fresh.url))
      yield* TestClock.adjust("1 minute")
      const expired = yield* Effect.flip(users.signIn(token))
      assert.deepInclude(expired, { _tag: "SignInLinkRefused", reason: "expired" })
      assert.include(expired.message, "expired")
    }).pipe(Effect.provide(TestContext.TestContext)))

  it.effect("a session resolves from its cookie token until it is signed out or 12 hours pass (TestClock)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { token, user, users } = yield* person()
      const opened = yield* users.signIn(token)
      const cookie = opened.token
      const resolved = yield* users.resolve(cookieValue(cookie))
      assert.strictEqual(resolved.sessionId, opened.human.sessionId)
      assert.strictEqual(resolved.sessionExpiresAt.getTime(), SUITE_NOW + 12 * 3_600_000)
      assert.deepInclude(yield* Effect.flip(users.resolve("")), { _tag: "SessionRequired" })
      assert.deepInclude(yield* Effect.flip(users.resolve(token)), { _tag: "SessionRequired" }, "a link token is not a session token")

      yield* TestClock.adjust("12 hours")
      assert.deepInclude(yield* Effect.flip(users.resolve(cookieValue(cookie))), { _tag: "SessionRequired" })

      const second = yield* users.signIn(tokenOf((yield* users.issueLink(user)).url))
      yield* users.resolve(cookieValue(second.token))
      yield* users.signOut(second.human.sessionId)
      const out = yield* Effect.flip(users.resolve(cookieValue(second.token)))
      assert.include(out.message, "unknown, expired or signed out")
    }).pipe(Effect.provide(TestContext.TestContext)))

  it.effect("disabling a person ends their sessions and expires their links at once; enabled again, only a new link signs them in", () =>
    Effect.gen(function* () {
      const { token, user, users, workspace } = yield* person()
      const opened = yield* users.signIn(token)
      const other = yield* users.signIn(tokenOf((yield* users.issueLink(user)).url))
      const pending = yield* users.issueLink(user)

      assert.deepStrictEqual(yield* users.disable(user), { disabled: true, sessionsEnded: 2 })
      for (const session of [opened, other]) {
        assert.deepInclude(yield* Effect.flip(users.resolve(cookieValue(session.token))), { _tag: "SessionRequired" })
      }
      // while disabled, that is what a link they had says (not that it expired, which disabling did)
      assert.deepInclude(yield* Effect.flip(users.signIn(tokenOf(pending.url))), { _tag: "SignInLinkRefused", reason: "disabled" })
      const whileDisabled = yield* users.issueLink(user)
      assert.deepInclude(yield* Effect.flip(users.signIn(tokenOf(whileDisabled.url))), { _tag: "SignInLinkRefused", reason: "disabled" })
      assert.deepStrictEqual(yield* users.disable(user), { disabled: false, sessionsEnded: 0 })
      const listed = (yield* users.list(workspace.name))[0]
      assert.strictEqual(listed?.activeSessions, 0)
      assert.isNotNull(listed?.disabledAt)

      assert.deepStrictEqual(yield* users.enable(user), { enabled: true })
      assert.deepStrictEqual(yield* users.enable(user), { enabled: false })
      assert.deepInclude(yield* Effect.flip(users.signIn(tokenOf(pending.url))), { reason: "expired" }, "what disabling ended stays ended")
      assert.deepInclude(yield* Effect.flip(users.resolve(cookieValue(opened.token))), { _tag: "SessionRequired" })
      const back = yield* users.signIn(tokenOf((yield* users.issueLink(user)).url))
      assert.strictEqual((yield* users.resolve(cookieValue(back.token))).userId, user.id)
    }))

  it.effect("the CSRF token is the same for a session every time, differs between sessions, and only it matches", () =>
    Effect.gen(function* () {
      const csrf = yield* Csrf
      const one = yield* csrf.tokenFor("sess_one")
      assert.match(one, /^[0-9a-f]{64}$/)
      assert.strictEqual(yield* csrf.tokenFor("sess_one"), one)
      assert.notStrictEqual(yield* csrf.tokenFor("sess_two"), one)
      assert.isTrue(yield* csrf.matches("sess_one", one))
      assert.isFalse(yield* csrf.matches("sess_two", one))
      assert.isFalse(yield* csrf.matches("sess_one", "not hex at all"))
    }))
})
