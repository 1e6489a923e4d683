import { HttpClientRequest } from "@effect/platform"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Option, Redacted, Schema } from "effect"
import {
  BadRequest,
  Forbidden,
  InternalError,
  InvalidInput,
  MethodNotAllowed,
  RouteNotFound,
  Unauthorized,
  UnsupportedMediaType
} from "../../../schema/Errors.ts"
import { MAX_ISSUES } from "../../../schema/Issues.ts"
import { errorAnswer, tooLarge } from "../../../src/http/Gate.ts"
import { HttpTest, issueKey, rawRequest } from "./TestServer.ts"

const Issue = Schema.Struct({ path: Schema.String, message: Schema.String })
const ErrorBody = Schema.parseJson(Schema.Struct(
  { _tag: Schema.String, message: Schema.String, issues: Schema.optional(Schema.Array(Issue)) },
  { key: Schema.String, value: Schema.Unknown }
))
const decodeError = Schema.decodeUnknown(ErrorBody)

const post = (path: string, key: Redacted.Redacted<string>) =>
  HttpClientRequest.post(path).pipe(HttpClientRequest.bearerToken(Redacted.value(key)))
const withJson = (text: string) => HttpClientRequest.bodyText(text, "application/json")

describe("the gate's one encoding", () => {
  it("answers each refusal with its status and its typed body", () => {
    const cases = [
      [new BadRequest({ message: "m" }), 400],
      [new Unauthorized({ message: "m" }), 401],
      [Forbidden.origin("https://evil.example"), 403],
      [new RouteNotFound({ message: "m" }), 404],
      [new MethodNotAllowed({ message: "m", allowed: ["GET"] }), 405],
      [tooLarge, 413],
      [UnsupportedMediaType.of(undefined), 415],
      [InvalidInput.of([{ path: "input.x", message: "is missing" }]), 422],
      [InternalError.unexpected, 500]
    ] as const
    for (const [error, status] of cases) {
      const answer = errorAnswer(error)
      assert.strictEqual(answer.status, status, error._tag)
      assert.deepInclude(answer.body, { _tag: error._tag, message: error.message })
    }
    assert.deepStrictEqual(errorAnswer(new Unauthorized({ message: "m" })).headers, { "www-authenticate": "Bearer realm=\"brein\"" })
    assert.deepStrictEqual(errorAnswer(tooLarge).headers, { connection: "close" })
  })
})

layer(HttpTest, { excludeTestServices: true })("HTTP errors a person can read", (it) => {
  it.effect("POST /api/v1/connections answers bad, empty and missing bodies with InvalidInput (422) and field paths, never a schema tree", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("errors-paid", "paid")
      const cases = [
        {
          body: `{"connector":"x","credentials":{"rut":"12345678-5","clave":"c"}}`,
          issues: [{ path: "connector", message: `must be "sii" or "banco", got "x"` }]
        },
        { body: `{"connector":"sii"}`, issues: [{ path: "credentials", message: "is missing" }] },
        { body: ``, issues: [{ path: "body", message: "must be a JSON object, got null" }] }
      ]
      for (const c of cases) {
        const response = yield* rawRequest(post("/api/v1/connections", key).pipe(withJson(c.body)))
        assert.strictEqual(response.status, 422, c.body)
        const error = yield* decodeError(response.text)
        assert.strictEqual(error._tag, "InvalidInput", c.body)
        assert.deepStrictEqual(error.issues, c.issues, c.body)
        assert.notInclude(response.text, "HttpApiDecodeError")
      }
      const none = yield* rawRequest(post("/api/v1/connections", key))
      assert.strictEqual(none.status, 422)
      assert.strictEqual((yield* decodeError(none.text))._tag, "InvalidInput")
    }))

  it.effect("a long value is reported by its length and the limit, never echoed; a huge bad input gets a small answer", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("errors-free", "free")
      const long = yield* rawRequest(
        post("/api/v1/tools/echo.message.reflect/execute", key).pipe(withJson(JSON.stringify({ input: { message: "x".repeat(10_001) } })))
      )
      assert.strictEqual(long.status, 422)
      const error = yield* decodeError(long.text)
      assert.strictEqual(error.message, "input.message must be at most 10,000 characters, got 10,001")
      assert.isBelow(long.text.length, 500)

      const zone = yield* rawRequest(
        post("/api/v1/tools/core.timestamp.now/execute", key).pipe(withJson(JSON.stringify({ input: { timezone: "x".repeat(900_000) } })))
      )
      assert.strictEqual(zone.status, 422)
      assert.isBelow(zone.text.length, 4096, "a schema's own message that quotes the value keeps only its start")
      assert.notInclude(zone.text, "x".repeat(50))
      const zoneError = yield* decodeError(zone.text)
      assert.deepStrictEqual(zoneError.issues, [{
        path: "input.timezone",
        message: `must be an IANA time zone, got "${"x".repeat(19)}…" (900,000 characters)`
      }])

      const fields = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`field${i}`, "y".repeat(10)]))
      const huge = JSON.stringify({ input: { message: 42, ...fields } })
      assert.isAbove(huge.length, 900_000)
      const refused = yield* rawRequest(post("/api/v1/tools/echo.message.reflect/execute", key).pipe(withJson(huge)))
      assert.strictEqual(refused.status, 422)
      assert.isBelow(refused.text.length, 4096)
      const many = yield* decodeError(refused.text)
      assert.strictEqual(many.issues?.length, MAX_ISSUES)
      assert.match(
        many.message,
        /^input\.field0 is not a field this input accepts; .*; and 39,997 more$/,
        "refused by the count of unknown fields, before the schema reads the others"
      )

      const paid = yield* issueKey("errors-paid-2", "paid")
      const rut = yield* rawRequest(
        post("/api/v1/connections", paid).pipe(
          withJson(JSON.stringify({ connector: "sii", credentials: { rut: "9".repeat(900_000), clave: "c" } }))
        )
      )
      assert.strictEqual(rut.status, 422)
      assert.isBelow(rut.text.length, 1024)
      assert.notInclude(rut.text, "9".repeat(50))
      assert.include(rut.text, "credentials.rut")
    }))

  it.effect("refusals an agent can act on carry a hint and next actions", () =>
    Effect.gen(function* () {
      const free = yield* issueKey("errors-free-2", "free")
      const plan = yield* rawRequest(
        post("/api/v1/connections", free).pipe(
          withJson(JSON.stringify({ connector: "sii", credentials: { rut: "12345678-5", clave: "c" } }))
        )
      )
      assert.strictEqual(plan.status, 403)
      const planError = yield* decodeError(plan.text)
      assert.deepInclude(planError, { _tag: "Forbidden", reason: "plan_required" })
      assert.include(String(planError["hint"]), "--plan paid")

      const anonymous = yield* rawRequest(HttpClientRequest.get("/api/v1/connections"))
      assert.strictEqual(anonymous.status, 401)
      assert.include(String((yield* decodeError(anonymous.text))["hint"]), "Authorization: Bearer")
      assert.isTrue(Option.isSome(Option.fromNullable(anonymous.contentType.match(/json/))))
    }))
})
