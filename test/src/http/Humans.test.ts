import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted, Schema } from "effect"
import { BreinApi } from "../../../schema/http/Api.ts"
import { Users } from "../../../services/humans/Users.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { insertPreflight, insertSequence, ledgerRows, sequenceState } from "../../services/humans/SequenceFixtures.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { HttpTest, issueKey } from "./TestServer.ts"

const Body = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const decodeBody = Schema.decodeUnknownSync(Body)

interface Answer {
  readonly status: number
  readonly setCookie: string | undefined
  readonly body: Readonly<Record<string, unknown>>
}

const send = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request)).pipe(
    Effect.flatMap((response) =>
      Effect.map(response.text, (text): Answer => ({
        status: response.status,
        setCookie: response.headers["set-cookie"],
        body: text === "" ? {} : decodeBody(text)
      }))
    ),
    Effect.scoped
  )

interface Credentials {
  readonly cookie?: string
  readonly csrf?: string
  readonly key?: Redacted.Redacted<string>
}

const withCredentials = (request: HttpClientRequest.HttpClientRequest, credentials: Credentials) =>
  request.pipe(
    (r) => credentials.cookie === undefined ? r : HttpClientRequest.setHeader(r, "cookie", `brein_session=${credentials.cookie}`),
    (r) => credentials.csrf === undefined ? r : HttpClientRequest.setHeader(r, "x-csrf-token", credentials.csrf),
    (r) => credentials.key === undefined ? r : HttpClientRequest.bearerToken(r, Redacted.value(credentials.key))
  )

const get = (path: string, credentials: Credentials = {}) => send(withCredentials(HttpClientRequest.get(path), credentials))
const post = (path: string, body: unknown, credentials: Credentials = {}) =>
  send(withCredentials(HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body)), credentials))

/** A body sent as it is, with its own Content-Type: what the typed client cannot send. */
const postText = (path: string, text: string, contentType: string, credentials: Credentials) =>
  send(withCredentials(HttpClientRequest.post(path).pipe(HttpClientRequest.bodyText(text, contentType)), credentials))
/** Without any body at all, as `curl -X POST` sends it. */
const postNothing = (path: string, credentials: Credentials) => send(withCredentials(HttpClientRequest.post(path), credentials))

/** Bodies a route that takes none (or `{}`) refuses, each with the error every other route answers it with. */
const FOREIGN_BODIES = [
  { text: "pause now", type: "application/json", answer: [400, "BadRequest", "the request body is not valid JSON"] },
  { text: `{"force":true}`, type: "application/json", answer: [422, "InvalidInput", "force is not a field this input accepts"] },
  { text: "[]", type: "application/json", answer: [422, "InvalidInput", "body must be a JSON object, got an array"] },
  {
    text: "{}",
    type: "text/plain",
    answer: [415, "UnsupportedMediaType", "the request body must be JSON: send it with Content-Type: application/json, not text/plain"]
  }
] as const

/** Each of FOREIGN_BODIES sent to `path`: what was answered, beside what should have been. */
const foreignBodies = (path: string, credentials: Credentials) =>
  Effect.forEach(FOREIGN_BODIES, (body) =>
    Effect.map(postText(path, body.text, body.type, credentials), (answer) => ({
      sent: `${body.type} ${body.text}`,
      answered: [answer.status, answer.body["_tag"], answer.body["message"]],
      expected: body.answer
    })))

const assertRefused = (answers: Effect.Effect.Success<ReturnType<typeof foreignBodies>>) =>
  assert.deepStrictEqual(answers.map((a) => [a.sent, ...a.answered]), answers.map((a) => [a.sent, ...a.expected]))

const BODY_METHODS = new Set(["post", "put", "patch", "delete"])
const decodePaths = Schema.decodeUnknownSync(Schema.Record({
  key: Schema.String,
  value: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({
      requestBody: Schema.optional(Schema.Struct({
        required: Schema.Boolean,
        content: Schema.Record({ key: Schema.String, value: Schema.Struct({ schema: Schema.Unknown }) })
      }))
    })
  })
}))

const COOKIE = /^brein_session=([A-Za-z0-9_-]{43})$/

/** A person of a (new) workspace, a sign-in link for them and a key of the same workspace. */
const person = (workspace: string = uniqueName("people"), email = "ana@acme.cl") =>
  Effect.gen(function* () {
    const key = yield* issueKey(workspace, "paid")
    const principal = yield* Effect.orDie((yield* Workspaces).principalFor(workspace))
    const users = yield* Users
    const { user } = yield* users.create(workspace, email)
    const link = yield* users.issueLink(user)
    const token = new URL(link.url).searchParams.get("token") ?? ""
    return { workspace, workspaceId: principal.workspaceId, key, user, users, token }
  })

/** Signs in over HTTP; answers the cookie's token and the CSRF token. */
const signIn = (token: string) =>
  Effect.gen(function* () {
    const answer = yield* get(`/auth/sign-in?token=${token}`)
    assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
    const cookie = COOKIE.exec(answer.setCookie?.split(";")[0] ?? "")?.[1] ?? ""
    return { answer, cookie, csrf: String(answer.body["csrf_token"]) }
  })

const signedIn = (workspace?: string) =>
  Effect.gen(function* () {
    const who = yield* person(workspace)
    return { ...who, ...(yield* signIn(who.token)) }
  })

layer(HttpTest, { excludeTestServices: true })("people over HTTP: sign-in, session, CSRF, activation", (it) => {
  it.effect("a sign-in link sets an HttpOnly, SameSite=Strict session cookie with its age, once; a used or unknown link opens nothing", () =>
    Effect.gen(function* () {
      const who = yield* person()
      const { answer, cookie, csrf } = yield* signIn(who.token)
      assert.strictEqual(answer.setCookie, `brein_session=${cookie}; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict`)
      assert.match(csrf, /^[0-9a-f]{64}$/)
      assert.deepStrictEqual(answer.body["user"], { id: who.user.id, email: "ana@acme.cl" })
      assert.deepStrictEqual(answer.body["workspace"], { id: who.workspaceId, name: who.workspace })

      const again = yield* get(`/auth/sign-in?token=${who.token}`)
      assert.strictEqual(again.status, 401)
      assert.deepInclude(again.body, { _tag: "SignInLinkRefused", reason: "used" })
      assert.isUndefined(again.setCookie)
      const unknown = yield* get(`/auth/sign-in?token=${"x".repeat(43)}`)
      assert.deepInclude(unknown.body, { _tag: "SignInLinkRefused", reason: "unknown" })
      assert.isUndefined(unknown.setCookie)
      assert.strictEqual((yield* get("/auth/sign-in")).status, 422)
      const twice = yield* get(`/auth/sign-in?token=${who.token}&token=${who.token}`)
      assert.strictEqual(twice.status, 422)
      assert.include(String(twice.body["message"]), "token must be given once")
    }))

  it.effect("GET /api/v1/me answers the person, workspace, expiry and CSRF token with the cookie, and 401 without it", () =>
    Effect.gen(function* () {
      const me = yield* signedIn()
      const answer = yield* get("/api/v1/me", { cookie: me.cookie })
      assert.strictEqual(answer.status, 200)
      assert.deepStrictEqual(answer.body, me.answer.body)
      const session = answer.body["session"]
      assert.isTrue(typeof session === "object" && session !== null && "expires_at" in session)

      const none = yield* get("/api/v1/me")
      assert.strictEqual(none.status, 401)
      assert.deepInclude(none.body, { _tag: "SessionRequired" })
      assert.include(String(none.body["message"]), "no brein_session cookie")
      assert.strictEqual((yield* get("/api/v1/me", { cookie: "A".repeat(43) })).status, 401)
      const keyOnly = yield* get("/api/v1/me", { key: me.key })
      assert.strictEqual(keyOnly.status, 403, "an API key is never a person")
      assert.deepInclude(keyOnly.body, { _tag: "HumanRequired" })
    }))

  it.effect("signing out needs the CSRF token (missing or wrong: 403); then the cookie is cleared and the session is gone", () =>
    Effect.gen(function* () {
      const me = yield* signedIn()
      const missing = yield* post("/auth/sign-out", {}, { cookie: me.cookie })
      assert.strictEqual(missing.status, 403)
      assert.deepInclude(missing.body, { _tag: "CsrfRejected" })
      assert.include(String(missing.body["message"]), "needs the X-CSRF-Token header")
      const other = yield* signedIn()
      const wrong = yield* post("/auth/sign-out", {}, { cookie: me.cookie, csrf: other.csrf })
      assert.strictEqual(wrong.status, 403)
      assert.include(String(wrong.body["message"]), "does not match this session")
      assert.strictEqual((yield* get("/api/v1/me", { cookie: me.cookie })).status, 200, "refused requests changed nothing")

      const out = yield* post("/auth/sign-out", {}, { cookie: me.cookie, csrf: me.csrf })
      assert.strictEqual(out.status, 200)
      assert.strictEqual(out.setCookie, "brein_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict")
      assert.strictEqual((yield* get("/api/v1/me", { cookie: me.cookie })).status, 401)
      assert.strictEqual((yield* get("/api/v1/me", { cookie: other.cookie })).status, 200)
    }))

  it.effect("activation is refused to an API key, and to a valid cookie with a bearer header riding along; nothing is written", () =>
    Effect.gen(function* () {
      const me = yield* signedIn()
      const sequence = yield* insertSequence(me.workspaceId)
      yield* insertPreflight(me.workspaceId, sequence)
      const path = `/api/v1/sequences/${sequence.id}/activate`
      const body = { version: sequence.version }
      for (const credentials of [{ key: me.key }, { key: me.key, cookie: me.cookie, csrf: me.csrf }]) {
        const refused = yield* post(path, body, credentials)
        assert.strictEqual(refused.status, 403, JSON.stringify(credentials))
        assert.deepInclude(refused.body, { _tag: "HumanRequired" })
        assert.include(String(refused.body["message"]), "needs a signed-in person")
      }
      const notJson = yield* send(withCredentials(
        HttpClientRequest.post(path).pipe(HttpClientRequest.bodyText("version=3", "text/plain")),
        { cookie: me.cookie, csrf: me.csrf }
      ))
      assert.strictEqual(notJson.status, 415, "the gate's admission checks come first")
      const noCsrf = yield* post(path, body, { cookie: me.cookie })
      assert.deepInclude(noCsrf.body, { _tag: "CsrfRejected" })
      assert.strictEqual((yield* post(path, body)).status, 401)
      assert.lengthOf(yield* ledgerRows(sequence.id), 0)
      assert.strictEqual((yield* sequenceState(sequence.id))?.status, "draft")
    }))

  it.effect("a signed-in person activates the version they reviewed; the ledger lists it for a key and a cookie alike; a second try is refused", () =>
    Effect.gen(function* () {
      const me = yield* signedIn()
      const sequence = yield* insertSequence(me.workspaceId)
      const preflight = yield* insertPreflight(me.workspaceId, sequence)
      const path = `/api/v1/sequences/${sequence.id}/activate`
      const done = yield* post(path, { version: sequence.version }, { cookie: me.cookie, csrf: me.csrf })
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))
      assert.deepInclude(done.body, { sequence_id: sequence.id, preflight_id: preflight, recipients: 2, user_email: "ana@acme.cl" })
      assert.strictEqual((yield* sequenceState(sequence.id))?.status, "active")

      const again = yield* post(path, { version: sequence.version }, { cookie: me.cookie, csrf: me.csrf })
      assert.strictEqual(again.status, 409)
      assert.deepInclude(again.body, { _tag: "ActivationRefused", reason: "not_draft" })

      const ledger = `/api/v1/sequences/${sequence.id}/authorizations`
      const byKey = yield* get(ledger, { key: me.key })
      const byCookie = yield* get(ledger, { cookie: me.cookie })
      assert.deepStrictEqual(byKey.body, { authorizations: [done.body] })
      assert.deepStrictEqual(byCookie.body, byKey.body)
      assert.strictEqual((yield* get(ledger)).status, 401)
      const stranger = yield* signedIn()
      assert.strictEqual((yield* get(ledger, { key: stranger.key })).status, 404)
      assert.strictEqual((yield* get(ledger, { cookie: stranger.cookie })).status, 404)
    }))

  it.effect("a signed-in person pauses an active sequence and resumes it; twice changes nothing; a key, a draft and a stranger are refused", () =>
    Effect.gen(function* () {
      const me = yield* signedIn()
      const sequence = yield* insertSequence(me.workspaceId)
      yield* insertPreflight(me.workspaceId, sequence)
      const as = { cookie: me.cookie, csrf: me.csrf }
      const pause = `/api/v1/sequences/${sequence.id}/pause`
      const resume = `/api/v1/sequences/${sequence.id}/resume`
      const draft = yield* post(pause, {}, as)
      assert.strictEqual(draft.status, 409, JSON.stringify(draft.body))
      assert.deepInclude(draft.body, { _tag: "SequenceConflict", reason: "not_active", status: "draft" })
      assert.strictEqual((yield* post(`/api/v1/sequences/${sequence.id}/activate`, { version: sequence.version }, as)).status, 200)

      assert.deepInclude((yield* post(pause, {}, { key: me.key })).body, { _tag: "HumanRequired" }, "an API key is not a person")
      assert.deepInclude((yield* post(pause, {}, { cookie: me.cookie })).body, { _tag: "CsrfRejected" })
      const stranger = yield* signedIn()
      assert.strictEqual((yield* post(pause, {}, { cookie: stranger.cookie, csrf: stranger.csrf })).status, 404)
      assert.strictEqual((yield* sequenceState(sequence.id))?.status, "active", "none of those changed it")

      const paused = yield* post(pause, {}, as)
      assert.strictEqual(paused.status, 200, JSON.stringify(paused.body))
      assert.deepInclude(paused.body, { sequence_id: sequence.id, status: "paused", changed: true })
      assert.strictEqual((yield* sequenceState(sequence.id))?.status, "paused")
      assert.deepInclude((yield* post(pause, {}, as)).body, { status: "paused", changed: false })
      const resumed = yield* post(resume, {}, as)
      assert.deepInclude(resumed.body, { status: "active", changed: true })
      assert.strictEqual((yield* sequenceState(sequence.id))?.status, "active")
      assert.deepInclude((yield* post(resume, {}, as)).body, { status: "active", changed: false })
    }))

  it.effect("pause, resume and sign-out take no body or {}: a body not JSON (400), a field (422), another type (415) is refused and changes nothing", () =>
    Effect.gen(function* () {
      const me = yield* signedIn()
      const as = { cookie: me.cookie, csrf: me.csrf }
      const sequence = yield* insertSequence(me.workspaceId)
      yield* insertPreflight(me.workspaceId, sequence)
      assert.strictEqual((yield* post(`/api/v1/sequences/${sequence.id}/activate`, { version: sequence.version }, as)).status, 200)
      const pause = `/api/v1/sequences/${sequence.id}/pause`
      const resume = `/api/v1/sequences/${sequence.id}/resume`

      assertRefused(yield* foreignBodies(pause, as))
      assert.strictEqual((yield* sequenceState(sequence.id))?.status, "active", "no refused body paused it")
      const paused = yield* postNothing(pause, as)
      assert.strictEqual(paused.status, 200, JSON.stringify(paused.body))
      assert.deepInclude(paused.body, { status: "paused", changed: true })

      assertRefused(yield* foreignBodies(resume, as))
      assert.strictEqual((yield* sequenceState(sequence.id))?.status, "paused", "no refused body resumed it")
      assert.deepInclude((yield* postNothing(resume, as)).body, { status: "active", changed: true })
      assert.deepInclude((yield* post(pause, {}, as)).body, { status: "paused", changed: true })

      assertRefused(yield* foreignBodies("/auth/sign-out", as))
      assert.strictEqual((yield* get("/api/v1/me", { cookie: me.cookie })).status, 200, "no refused body signed it out")
      const out = yield* postNothing("/auth/sign-out", as)
      assert.strictEqual(out.status, 200, JSON.stringify(out.body))
      assert.strictEqual((yield* get("/api/v1/me", { cookie: me.cookie })).status, 401)
    }))

  it.effect("the typed client pauses, resumes and signs out, sending {}", () =>
    Effect.gen(function* () {
      const me = yield* signedIn()
      const as = { cookie: me.cookie, csrf: me.csrf }
      const sequence = yield* insertSequence(me.workspaceId)
      yield* insertPreflight(me.workspaceId, sequence)
      assert.strictEqual((yield* post(`/api/v1/sequences/${sequence.id}/activate`, { version: sequence.version }, as)).status, 200)
      const client = yield* HttpApiClient.make(BreinApi, {
        transformClient: HttpClient.mapRequest((request) => withCredentials(request, as))
      })
      const path = { id: sequence.id }
      assert.deepInclude(yield* client.sequenceAuthorizations.pause({ path, payload: {} }), { status: "paused", changed: true })
      assert.deepInclude(yield* client.sequenceAuthorizations.resume({ path, payload: {} }), { status: "active", changed: true })
      assert.deepStrictEqual(yield* client.humans.signOut({ payload: {} }), { signed_out: true })
      assert.strictEqual((yield* get("/api/v1/me", { cookie: me.cookie })).status, 401)
    }))

  it.effect("refusals over HTTP: blocked preflight (with its blockers), changed after preflight, reviewed version, another workspace", () =>
    Effect.gen(function* () {
      const me = yield* signedIn()
      const credentials = { cookie: me.cookie, csrf: me.csrf }
      const activate = (id: string, version: number) => post(`/api/v1/sequences/${id}/activate`, { version }, credentials)
      const blockers = [{ rule: "regional_notice" as const, message: "MX recipients need the privacy notice" }]

      const blocked = yield* insertSequence(me.workspaceId)
      yield* insertPreflight(me.workspaceId, blocked, { blockers })
      const b = yield* activate(blocked.id, blocked.version)
      assert.strictEqual(b.status, 409)
      assert.deepInclude(b.body, { reason: "preflight_blocked", blockers })

      const changed = yield* insertSequence(me.workspaceId)
      yield* insertPreflight(me.workspaceId, changed, { recipientsDigest: "r_before" })
      const c = yield* activate(changed.id, changed.version)
      assert.deepInclude(c.body, { reason: "preflight_stale" })
      assert.include(String(c.body["message"]), "run sequence_preflight again")

      const reviewed = yield* insertSequence(me.workspaceId)
      yield* insertPreflight(me.workspaceId, reviewed)
      const v = yield* activate(reviewed.id, reviewed.version - 1)
      assert.deepInclude(v.body, { reason: "version_mismatch" })

      const other = yield* signedIn()
      const theirs = yield* insertSequence(other.workspaceId)
      yield* insertPreflight(other.workspaceId, theirs)
      const t = yield* activate(theirs.id, theirs.version)
      assert.strictEqual(t.status, 404)
      assert.deepInclude(t.body, { _tag: "SequenceNotFound" })
      // an id that is none of brein's (a NUL byte, text) names no sequence: 404 on every route, never a query that fails
      for (const odd of ["%00", `${blocked.id}%00`, "secuencia"]) {
        const answers = [
          yield* activate(odd, 1),
          yield* post(`/api/v1/sequences/${odd}/pause`, {}, credentials),
          yield* post(`/api/v1/sequences/${odd}/resume`, {}, credentials),
          yield* get(`/api/v1/sequences/${odd}/authorizations`, credentials)
        ]
        assert.deepStrictEqual(answers.map((a) => [a.status, a.body["_tag"]]), Array(4).fill([404, "SequenceNotFound"]), odd)
      }
      for (
        const [body, said] of [
          [{ version: 0 }, "version must be a positive integer"],
          [{ version: 1.5 }, "version must be a positive integer"],
          [{ version: "1" }, "version must be a positive integer"],
          [{ version: blocked.version, verison: blocked.version }, "verison is not a field this input accepts"]
        ] as const
      ) {
        const refused = yield* post(`/api/v1/sequences/${blocked.id}/activate`, body, credentials)
        assert.strictEqual(refused.status, 422, JSON.stringify(body))
        assert.strictEqual(refused.body["message"], said)
      }

      for (const id of [blocked.id, changed.id, reviewed.id, theirs.id]) assert.lengthOf(yield* ledgerRows(id), 0)
    }))

  it.effect("the OpenAPI document describes the new routes, the cookie scheme, and the body of every route that takes one", () =>
    Effect.gen(function* () {
      const doc = yield* get("/openapi.json")
      const paths = Object.keys(doc.body["paths"] ?? {})
      for (const route of ["/auth/sign-in", "/auth/sign-out", "/api/v1/me", "/api/v1/sequences/{id}/activate"]) {
        assert.include(paths, route)
      }
      assert.include(JSON.stringify(doc.body["components"]), "brein_session")
      const operations = decodePaths(doc.body["paths"])
      const undeclared = Object.entries(operations).flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([method, operation]) => BODY_METHODS.has(method) && operation.requestBody === undefined)
          .map(([method]) => `${method} ${path}`)
      )
      assert.deepStrictEqual(undeclared, [], "every route a body can be sent to says which it takes")
      for (const path of ["/auth/sign-out", "/api/v1/sequences/{id}/pause", "/api/v1/sequences/{id}/resume"]) {
        const body = operations[path]?.["post"]?.requestBody
        assert.strictEqual(body?.required, false, path)
        assert.deepInclude(body?.content["application/json"]?.schema, { type: "object", additionalProperties: false }, path)
      }
    }))
})

const HttpsTest = HttpTest.pipe(
  Layer.provide(
    Layer.setConfigProvider(
      ConfigProvider.orElse(
        ConfigProvider.fromMap(new Map([["BREIN_PUBLIC_URL", "https://brein.example.com"]])),
        () => ConfigProvider.fromEnv()
      )
    )
  )
)

layer(HttpsTest, { excludeTestServices: true })("sign-in behind an https public URL", (it) => {
  it.effect("the link starts with the public URL and the cookie is Secure", () =>
    Effect.gen(function* () {
      const who = yield* person()
      const users = yield* Users
      const link = yield* users.issueLink(who.user)
      assert.match(link.url, /^https:\/\/brein\.example\.com\/auth\/sign-in\?token=/)
      const answer = yield* get(`/auth/sign-in?token=${who.token}`)
      assert.match(answer.setCookie ?? "", /^brein_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/)
    }))
})
