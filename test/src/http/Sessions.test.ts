import { HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import { BenchServicesLive, ScriptedModelLive } from "../../../layers/LunaBench.ts"
import { LunaEvent } from "../../../schema/luna/Events.ts"
import { Users } from "../../../services/humans/Users.ts"
import { ScriptedModel } from "../../../services/luna/ScriptedModel.ts"
import { call, callsReply, textReply } from "../../support/LunaBench.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { HttpTest, httpTestOver, issueKey } from "./TestServer.ts"

const SessionsHttpTest = httpTestOver(BenchServicesLive.pipe(Layer.provideMerge(ScriptedModelLive)))

const decodeJson = Schema.decodeUnknownSync(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
const decodeEvent = Schema.decodeUnknownSync(Schema.parseJson(LunaEvent))

interface Credentials {
  readonly key?: Redacted.Redacted<string>
  readonly cookie?: string
  readonly csrf?: string
  readonly lastEventId?: string
}

const request = (r: HttpClientRequest.HttpClientRequest, credentials: Credentials) =>
  r.pipe(
    (q) => credentials.key === undefined ? q : HttpClientRequest.bearerToken(q, Redacted.value(credentials.key)),
    (q) => credentials.cookie === undefined ? q : HttpClientRequest.setHeader(q, "cookie", `brein_session=${credentials.cookie}`),
    (q) => credentials.csrf === undefined ? q : HttpClientRequest.setHeader(q, "x-csrf-token", credentials.csrf),
    (q) => credentials.lastEventId === undefined ? q : HttpClientRequest.setHeader(q, "last-event-id", credentials.lastEventId)
  )

const send = (r: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(r)).pipe(
    Effect.flatMap((response) =>
      Effect.map(response.text, (text) => ({
        status: response.status,
        type: response.headers["content-type"] ?? "",
        cookie: /brein_session=([^;]+)/.exec(response.headers["set-cookie"] ?? "")?.[1] ?? "",
        retryAfter: response.headers["retry-after"],
        text
      }))
    ),
    Effect.scoped
  )

const json = (answer: { readonly text: string }) => decodeJson(answer.text)
const post = (path: string, body: unknown, credentials: Credentials) =>
  send(request(HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson(body)), credentials))
const get = (path: string, credentials: Credentials) => send(request(HttpClientRequest.get(path), credentials))

interface Frame {
  readonly id: number
  readonly event: string
  readonly data: LunaEvent
}

/** The frames of a server-sent event stream (comments skipped). */
const framesOf = (text: string): ReadonlyArray<Frame> =>
  text.split("\n\n").flatMap((block) => {
    const fields = new Map(
      block.split("\n").filter((l) => !l.startsWith(":") && l.includes(": ")).map((l) => {
        const at = l.indexOf(": ")
        return [l.slice(0, at), l.slice(at + 2)] as const
      })
    )
    const id = fields.get("id")
    const data = fields.get("data")
    return id === undefined || data === undefined ? [] : [{ id: Number(id), event: fields.get("event") ?? "", data: decodeEvent(data) }]
  })

/** Reads a live event stream until a frame says the turn ended, then hangs up. */
const follow = (path: string, credentials: Credentials) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request(HttpClientRequest.get(path), credentials))).pipe(
    Effect.flatMap((response) =>
      response.stream.pipe(
        Stream.decodeText(),
        Stream.mapAccum("", (buffer, chunk) => {
          const text = buffer + chunk
          const end = text.lastIndexOf("\n\n")
          return end === -1 ? [text, [] as ReadonlyArray<Frame>] : [text.slice(end + 2), framesOf(text.slice(0, end + 2))]
        }),
        Stream.flattenIterables,
        Stream.takeUntil((frame) => frame.event === "turn.completed"),
        Stream.runCollect
      )
    ),
    Effect.map(Chunk.toReadonlyArray),
    Effect.scoped
  )

/** A stream's status, type and first bytes, read as soon as they come; then hangs up. */
const opening = (path: string, credentials: Credentials) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request(HttpClientRequest.get(path), credentials))).pipe(
    Effect.flatMap((response) =>
      Effect.map(Stream.runHead(Stream.decodeText(response.stream)), (first) => ({
        status: response.status,
        type: response.headers["content-type"] ?? "",
        first: Option.getOrElse(first, () => "")
      }))
    ),
    Effect.scoped
  )

const newKey = (workspace: string = uniqueName("luna")) => Effect.map(issueKey(workspace, "paid"), (key) => ({ workspace, key }))

const createSession = (credentials: Credentials, body: unknown = { stage: "prospectando" }) =>
  Effect.map(post("/api/v1/sessions", body, credentials), (answer) => {
    assert.strictEqual(answer.status, 201, answer.text)
    return String(json(answer)["id"])
  })

layer(SessionsHttpTest, { excludeTestServices: true, timeout: "120 seconds" })("Luna's sessions over HTTP", (it) => {
  it.effect("a turn streams its events as server-sent events, numbered by seq, ending with turn.completed; the projection shows it", () =>
    Effect.gen(function* () {
      const { key } = yield* newKey()
      const id = yield* createSession({ key })
      yield* (yield* ScriptedModel).load([callsReply(call("usage", {})), textReply("Revisé el uso de tu cuenta [[ref:r1]].")])
      const answer = yield* post(`/api/v1/sessions/${id}/messages`, { text: "¿Cuánto he usado?" }, { key })
      assert.strictEqual(answer.status, 200, answer.text)
      assert.match(answer.type, /^text\/event-stream/)
      assert.isTrue(
        answer.text.startsWith(": connected\n\nid: 1\n"),
        "the stream opens with a comment, then the turn's first event, not a keep-alive"
      )
      const frames = framesOf(answer.text)
      assert.deepStrictEqual(frames.map((f) => f.id), [1, 2, 3, 4, 5, 6])
      assert.deepStrictEqual(frames.map((f) => f.event), [
        "turn.started",
        "message.user",
        "tool",
        "tool",
        "message.assistant",
        "turn.completed"
      ])
      assert.deepStrictEqual(frames.map((f) => f.data.seq), [1, 2, 3, 4, 5, 6])
      const end = frames[5]?.data
      assert.deepStrictEqual(end?.type === "turn.completed" ? end.outcome : null, {
        kind: "cierre",
        text: "Revisé el uso de tu cuenta.",
        partial: false
      })
      const view = json(yield* get(`/api/v1/sessions/${id}`, { key }))
      assert.strictEqual(view["last_seq"], 6)
      const turns = view["turns"] as ReadonlyArray<Record<string, unknown>>
      assert.deepStrictEqual(turns.map((t) => [t["status"], t["user"], t["text"]]), [[
        "completed",
        "¿Cuánto he usado?",
        "Revisé el uso de tu cuenta."
      ]])
    }))

  it.effect("the event stream resumes after Last-Event-ID (or ?after=), and a second turn comes live", () =>
    Effect.gen(function* () {
      const { key } = yield* newKey()
      const id = yield* createSession({ key })
      const model = yield* ScriptedModel
      yield* model.load([textReply("Hola, soy Luna.")])
      yield* post(`/api/v1/sessions/${id}/messages`, { text: "hola" }, { key })
      const resumed = yield* follow(`/api/v1/sessions/${id}/events`, { key, lastEventId: "2" })
      assert.deepStrictEqual(resumed.map((f) => [f.id, f.event]), [[3, "message.assistant"], [4, "turn.completed"]])
      const byQuery = yield* follow(`/api/v1/sessions/${id}/events?after=3`, { key })
      assert.deepStrictEqual(byQuery.map((f) => f.id), [4])
      const bad = yield* get(`/api/v1/sessions/${id}/events`, { key, lastEventId: "tres" })
      assert.strictEqual(bad.status, 422, bad.text)
      assert.strictEqual(json(bad)["_tag"], "InvalidInput")
      assert.include(String(json(bad)["message"]), "must be a whole number written in digits, got \"tres\"")
      const negative = yield* get(`/api/v1/sessions/${id}/events`, { key, lastEventId: "-1" })
      assert.strictEqual(negative.status, 422)
      assert.include(String(json(negative)["message"]), "must be a number between 0 and 2147483647, got -1")
      // seq is an integer column: a larger number is told the range rather than failing in the database
      const beyond = yield* get(`/api/v1/sessions/${id}/events`, { key, lastEventId: "2147483648" })
      assert.strictEqual(beyond.status, 422, beyond.text)
      assert.deepInclude(json(beyond), {
        _tag: "InvalidInput",
        message: "last-event-id must be a number between 0 and 2147483647, got 2147483648"
      })
      const unsafe = yield* get(`/api/v1/sessions/${id}/events?after=9007199254740991`, { key })
      assert.strictEqual(unsafe.status, 422, unsafe.text)
      assert.include(String(json(unsafe)["message"]), "after must be a number between 0 and 2147483647, got 9007199254740991")
      // past the safe integers the refusal quotes the number the client wrote, not the one Number() reads
      const huge = yield* get(`/api/v1/sessions/${id}/events?after=99999999999999999999`, { key })
      assert.strictEqual(huge.status, 422, huge.text)
      assert.strictEqual(json(huge)["message"], "after must be a number between 0 and 2147483647, got 99999999999999999999")
      const hugeHeader = yield* get(`/api/v1/sessions/${id}/events`, { key, lastEventId: "12345678901234567890123" })
      assert.strictEqual(hugeHeader.status, 422, hugeHeader.text)
      assert.strictEqual(
        json(hugeHeader)["message"],
        "last-event-id must be a number between 0 and 2147483647, got 12345678901234567890123"
      )
      const half = yield* get(`/api/v1/sessions/${id}/events?after=2.5`, { key })
      assert.strictEqual(half.status, 422, half.text)
      assert.include(String(json(half)["message"]), "after must be a whole number written in digits, got \"2.5\"")
    }))

  it.effect("the view pages its turns with ?turns= and ?before=, says more_before, and refuses a bad value by the parameter's name", () =>
    Effect.gen(function* () {
      const { key } = yield* newKey()
      const id = yield* createSession({ key })
      const model = yield* ScriptedModel
      for (const text of ["uno", "dos", "tres"]) {
        yield* model.load([textReply(`Hola ${text}.`)])
        yield* post(`/api/v1/sessions/${id}/messages`, { text }, { key })
      }
      const whole = json(yield* get(`/api/v1/sessions/${id}`, { key }))
      const turns = whole["turns"] as ReadonlyArray<Record<string, unknown>>
      assert.deepStrictEqual(turns.map((turn) => turn["user"]), ["uno", "dos", "tres"])
      assert.strictEqual(whole["more_before"], false)
      const latest = json(yield* get(`/api/v1/sessions/${id}?turns=2`, { key }))
      assert.deepStrictEqual(latest["turns"], turns.slice(1))
      assert.strictEqual(latest["more_before"], true)
      assert.strictEqual(latest["last_seq"], whole["last_seq"])
      const back = json(yield* get(`/api/v1/sessions/${id}?turns=2&before=${String(turns[1]?.["turn_id"])}`, { key }))
      assert.deepStrictEqual(back["turns"], turns.slice(0, 1))
      assert.strictEqual(back["more_before"], false)
      for (
        const [query, parameter, says] of [
          ["turns=0", "turns", "must be a number between 1 and 1000, got 0"],
          ["turns=dos", "turns", "must be a whole number written in digits"],
          ["turns=1001", "turns", "must be a number between 1 and 1000, got 1001"],
          ["before=ses_1", "before", "must be a turn's id (turn_…)"],
          ["turns=2&before=turn_nope", "before", "is not a turn of this session"]
        ]
      ) {
        const refused = yield* get(`/api/v1/sessions/${id}?${query}`, { key })
        assert.strictEqual(refused.status, 422, refused.text)
        const body = json(refused)
        assert.strictEqual(body["_tag"], "InvalidInput")
        const issues = body["issues"] as ReadonlyArray<Record<string, unknown>>
        assert.deepStrictEqual(issues.map((issue) => issue["path"]), [parameter], refused.text)
        assert.include(String(issues[0]?.["message"]), says, refused.text)
      }
    }))

  it.effect("an event stream with nothing new opens at once: its status, headers and a comment come before any event", () =>
    Effect.gen(function* () {
      const { key } = yield* newKey()
      const id = yield* createSession({ key })
      yield* (yield* ScriptedModel).load([textReply("Hola, soy Luna.")])
      yield* post(`/api/v1/sessions/${id}/messages`, { text: "hola" }, { key })
      const last = Number(json(yield* get(`/api/v1/sessions/${id}`, { key }))["last_seq"])
      assert.strictEqual(last, 4)
      // the turn has ended and nothing is written meanwhile: these streams have no event to send
      for (
        const [path, credentials] of [[`/api/v1/sessions/${id}/events`, { key, lastEventId: String(last) }], [
          `/api/v1/sessions/${id}/events?after=${last}`,
          { key }
        ]] as const
      ) {
        const opened = yield* opening(path, credentials)
        assert.strictEqual(opened.status, 200, path)
        assert.match(opened.type, /^text\/event-stream/, path)
        assert.strictEqual(opened.first, ": connected\n\n", path)
      }
    }))

  it.effect("a session is another key's or workspace's 404; without credentials 401; bad bodies are typed refusals that create nothing", () =>
    Effect.gen(function* () {
      const ana = yield* newKey()
      const id = yield* createSession({ key: ana.key })
      const sameWorkspace = yield* newKey(ana.workspace)
      const other = yield* newKey()
      for (const key of [sameWorkspace.key, other.key]) {
        const seen = yield* get(`/api/v1/sessions/${id}`, { key })
        assert.strictEqual(seen.status, 404, seen.text)
        assert.strictEqual(json(seen)["_tag"], "WorkSessionNotFound")
        const message = yield* post(`/api/v1/sessions/${id}/messages`, { text: "hola" }, { key })
        assert.strictEqual(message.status, 404)
        assert.strictEqual((yield* get(`/api/v1/sessions/${id}/events`, { key })).status, 404)
      }
      // an id that is none of brein's (a NUL byte, text, one too long) names no session: 404, never a query that fails
      for (const odd of ["%00", "a%00b", `${id}%00`, "ses_", "sesion", `ses_${"a".repeat(61)}`]) {
        const views = [
          yield* get(`/api/v1/sessions/${odd}`, { key: ana.key }),
          yield* get(`/api/v1/sessions/${odd}/events`, { key: ana.key }),
          yield* post(`/api/v1/sessions/${odd}/messages`, { text: "hola" }, { key: ana.key })
        ]
        assert.deepStrictEqual(
          views.map((v) => [v.status, json(v)["_tag"]]),
          [[404, "WorkSessionNotFound"], [404, "WorkSessionNotFound"], [404, "WorkSessionNotFound"]],
          odd
        )
      }
      const anonymous = yield* get(`/api/v1/sessions/${id}`, {})
      assert.strictEqual(anonymous.status, 401)
      assert.strictEqual(json(anonymous)["_tag"], "Unauthorized")
      assert.include(String(json(anonymous)["message"]), "Authorization: Bearer")
      for (
        const body of [{ stage: "vendiendo" }, { title: "" }, { title: "x".repeat(201) }, { title: "a\u0000b" }, { title: "a\ud800" }, {
          titel: "Q4"
        }]
      ) {
        const refused = yield* post("/api/v1/sessions", body, { key: ana.key })
        assert.strictEqual(refused.status, 422, JSON.stringify(body))
        assert.strictEqual(json(refused)["_tag"], "InvalidInput")
      }
      const said: Array<unknown> = []
      for (
        const body of [{ text: "   " }, {}, { text: "x".repeat(8001) }, { text: "a\u0000b" }, { text: "a\udfffb" }, {
          text: "hola",
          stage: "x"
        }]
      ) {
        const refused = yield* post(`/api/v1/sessions/${id}/messages`, body, { key: ana.key })
        assert.strictEqual(refused.status, 422, JSON.stringify(body))
        said.push(json(refused)["message"])
      }
      // one sentence after the field, as every input error reads
      assert.deepStrictEqual(said, [
        "text must not be blank",
        "text is missing",
        "text must be at most 8000 characters",
        "text must not contain the NUL character (\\u0000), which cannot be stored",
        "text must not contain a lone surrogate (\\ud800 to \\udfff without its pair), which is no Unicode text",
        "stage is not a field this input accepts"
      ])
      const view = json(yield* get(`/api/v1/sessions/${id}`, { key: ana.key }))
      assert.deepStrictEqual([view["turns"], view["last_seq"]], [[], 0])
    }))

  it.effect("a signed-in person's session: POST needs the CSRF token, and the person's API key of the same workspace cannot see it", () =>
    Effect.gen(function* () {
      const { key, workspace } = yield* newKey()
      const users = yield* Users
      const { user } = yield* users.create(workspace, "ana@acme.cl")
      const link = yield* users.issueLink(user)
      const signIn = yield* get(`/auth/sign-in?token=${new URL(link.url).searchParams.get("token") ?? ""}`, {})
      assert.strictEqual(signIn.status, 200)
      const { cookie } = signIn
      const csrf = String(json(signIn)["csrf_token"])
      const refused = yield* post("/api/v1/sessions", {}, { cookie })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(json(refused)["_tag"], "CsrfRejected")
      const created = yield* post("/api/v1/sessions", {}, { cookie, csrf })
      assert.strictEqual(created.status, 201, created.text)
      const body = json(created)
      assert.strictEqual(body["owner"], user.id)
      assert.strictEqual((yield* get(`/api/v1/sessions/${String(body["id"])}`, { cookie })).status, 200)
      assert.strictEqual((yield* get(`/api/v1/sessions/${String(body["id"])}`, { key })).status, 404)
    }))
})

layer(HttpTest, { excludeTestServices: true })("Luna without a model", (it) => {
  it.effect("starting a turn is 503 ModelNotConfigured without Retry-After, saying what to set; the session's log stays empty", () =>
    Effect.gen(function* () {
      const { key } = yield* newKey()
      const id = yield* createSession({ key })
      const answer = yield* post(`/api/v1/sessions/${id}/messages`, { text: "hola" }, { key })
      assert.strictEqual(answer.status, 503, answer.text)
      // waiting does not configure a model: no Retry-After to loop on
      assert.isUndefined(answer.retryAfter)
      assert.strictEqual(json(answer)["_tag"], "ModelNotConfigured")
      // the key is optional (an endpoint may take none): the message does not demand it
      assert.strictEqual(
        json(answer)["message"],
        "Luna has no model configured: set LUNA_MODEL_BASE_URL to an OpenAI-compatible chat-completions endpoint, " +
          "and LUNA_MODEL_API_KEY if it takes a key (LUNA_MODEL sets the model, deepseek-v4-flash by default)"
      )
      assert.strictEqual(json(yield* get(`/api/v1/sessions/${id}`, { key }))["last_seq"], 0)
    }))
})
