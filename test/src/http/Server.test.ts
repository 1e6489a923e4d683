import { HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Chunk, Effect, Either, Option, Redacted, Schema, Stream } from "effect"
import packageJson from "../../../package.json" with { type: "json" }
import { HTML } from "../../../schema/http/Unsubscribe.ts"
import { MAX_BODY_BYTES } from "../../../src/http/Server.ts"
import { HttpTest, issueKey, rawRequest } from "./TestServer.ts"

const Operation = Schema.Struct({
  responses: Schema.Record({
    key: Schema.String,
    value: Schema.Struct({ content: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })) })
  })
})

const OpenApiDocument = Schema.Struct({
  openapi: Schema.String,
  info: Schema.Struct({ version: Schema.String }, { key: Schema.String, value: Schema.Unknown }),
  servers: Schema.Array(Schema.Struct({ url: Schema.String }, { key: Schema.String, value: Schema.Unknown })),
  paths: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
  components: Schema.Struct({ schemas: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
})

const ErrorBody = Schema.parseJson(Schema.Struct({ _tag: Schema.String, message: Schema.String }))
const decodeError = Schema.decodeUnknown(ErrorBody)

const execute = (id: string, key: Option.Option<Redacted.Redacted<string>>) => {
  const request = HttpClientRequest.post(`/api/v1/tools/${id}/execute`)
  return Option.match(key, { onNone: () => request, onSome: (k) => HttpClientRequest.bearerToken(request, Redacted.value(k)) })
}

const withJson = (text: string) => HttpClientRequest.bodyText(text, "application/json")

const acme = Effect.map(issueKey("acme", "free"), Option.some)

layer(HttpTest, { excludeTestServices: true })("HTTP server", (it) => {
  it.effect("every failure is a JSON body with its _tag, a message and its status", () =>
    Effect.gen(function* () {
      const key = yield* acme
      const cases = [
        {
          name: "no key",
          request: execute("echo.message.reflect", Option.none()).pipe(withJson(`{"input":{"message":"hi"}}`)),
          status: 401,
          tag: "Unauthorized"
        },
        {
          name: "bad key",
          request: execute("echo.message.reflect", Option.some(Redacted.make("brein_sk_nope"))).pipe(
            withJson(`{"input":{"message":"hi"}}`)
          ),
          status: 401,
          tag: "Unauthorized"
        },
        {
          name: "bad input",
          request: execute("echo.message.reflect", key).pipe(withJson(`{"input":{}}`)),
          status: 422,
          tag: "InvalidInput"
        },
        {
          name: "unknown tool",
          request: execute("nope.nothing.here", key).pipe(withJson(`{"input":{}}`)),
          status: 404,
          tag: "ToolNotFound"
        },
        {
          name: "malformed JSON",
          request: execute("echo.message.reflect", key).pipe(withJson(`{"input": {"message": "hi"`)),
          status: 400,
          tag: "BadRequest"
        },
        {
          name: "bad connection header",
          request: execute("sii.rcv.consultar", key).pipe(
            withJson(`{"input":{}}`),
            HttpClientRequest.setHeader("X-Connect-Connection", "conn-")
          ),
          status: 422,
          tag: "InvalidInput"
        }
      ]
      for (const c of cases) {
        const response = yield* rawRequest(c.request)
        assert.strictEqual(response.status, c.status, c.name)
        assert.include(response.contentType, "application/json", c.name)
        const body = yield* decodeError(response.text)
        assert.strictEqual(body._tag, c.tag, c.name)
        assert.isNotEmpty(body.message, c.name)
      }
    }))

  it.effect("a declared body over 1 MiB is PayloadTooLarge (413); a body just under reaches the tool", () =>
    Effect.gen(function* () {
      const key = yield* acme
      const big = JSON.stringify({ input: { message: "x".repeat(MAX_BODY_BYTES) } })
      const refused = yield* rawRequest(execute("echo.message.reflect", key).pipe(withJson(big)))
      assert.strictEqual(refused.status, 413)
      const body = yield* Schema.decodeUnknown(Schema.parseJson(Schema.Struct({ _tag: Schema.String, limitBytes: Schema.Number })))(
        refused.text
      )
      assert.deepStrictEqual(body, { _tag: "PayloadTooLarge", limitBytes: MAX_BODY_BYTES })
      const justUnder = JSON.stringify({ input: { message: "x".repeat(MAX_BODY_BYTES - 100) } })
      const accepted = yield* rawRequest(execute("echo.message.reflect", key).pipe(withJson(justUnder)))
      assert.strictEqual(accepted.status, 422, "under the limit the tool's own 10 000-character limit answers")
    }))

  it.effect("a chunked body over 1 MiB is PayloadTooLarge (413) and never reaches the tool", () =>
    Effect.gen(function* () {
      const key = Option.some(yield* issueKey("chunky", "free"))
      const chunk = new TextEncoder().encode("x".repeat(64 * 1024))
      const body = Stream.concat(
        Stream.make(new TextEncoder().encode(`{"input":{"message":"`)),
        Stream.fromChunk(Chunk.makeBy(20, () => chunk))
      )
      const outcome = yield* Effect.either(rawRequest(
        execute("echo.message.reflect", key).pipe(HttpClientRequest.bodyStream(body, { contentType: "application/json" }))
      ))
      assert.isTrue(Either.isRight(outcome), "a refusal, not a reset")
      if (Either.isRight(outcome)) {
        assert.strictEqual(outcome.right.status, 413)
        assert.strictEqual((yield* decodeError(outcome.right.text))._tag, "PayloadTooLarge")
      }
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT 1 FROM audit_log a JOIN workspaces w ON w.id = a.workspace_id WHERE w.name = 'chunky'`
      assert.strictEqual(rows.length, 0)
    }))

  it.effect("a chunked body within the limit reaches a REST route and its answer is written (it was an empty 500)", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("chunked-small", "paid")
      const encode = (text: string) => new TextEncoder().encode(text)
      const answer = yield* rawRequest(
        HttpClientRequest.post("/api/v1/connections").pipe(
          HttpClientRequest.bearerToken(Redacted.value(key)),
          HttpClientRequest.bodyStream(Stream.make(encode(`{"connector":"sii",`), encode(`"nope":1}`)), {
            contentType: "application/json"
          })
        )
      )
      assert.strictEqual(answer.status, 422, answer.text)
      assert.include((yield* decodeError(answer.text)).message, "nope is not a field this input accepts")
    }))

  it.effect("GET /health answers ok with the database", () =>
    Effect.gen(function* () {
      const response = yield* rawRequest(HttpClientRequest.get("/health"))
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(JSON.parse(response.text), { status: "ok", database: "ok" })
    }))

  it.effect("GET /openapi.json is OpenAPI 3.1 with the package version, a server, and every tool's own input and output", () =>
    Effect.gen(function* () {
      const response = yield* rawRequest(HttpClientRequest.get("/openapi.json"))
      assert.strictEqual(response.status, 200)
      const document = yield* Schema.decodeUnknown(Schema.parseJson(OpenApiDocument))(response.text)
      assert.match(document.openapi, /^3\.1\./)
      assert.strictEqual(document.info.version, packageJson.version)
      assert.isNotEmpty(document.servers)
      assert.property(document.paths["/api/v1/tools/{id}/execute"], "post")
      assert.property(document.paths["/api/v1/tools"], "get")
      const tools = yield* rawRequest(
        HttpClientRequest.get("/api/v1/tools").pipe(HttpClientRequest.bearerToken(Redacted.value(Option.getOrThrow(yield* acme))))
      )
      const ids = (JSON.parse(tools.text) as { readonly tools: ReadonlyArray<{ readonly id: string }> }).tools.map((t) => t.id)
      assert.include(ids, "echo.message.reflect")
      for (const id of ids) {
        const operation = JSON.stringify(document.paths[`/api/v1/tools/${id}/execute`]?.["post"] ?? null)
        assert.include(operation, `"$ref":"#/components/schemas/${id}.Input"`, id)
        assert.include(operation, `"$ref":"#/components/schemas/${id}.Output"`, id)
        assert.property(document.components.schemas, `${id}.Input`)
        assert.property(document.components.schemas, `${id}.Output`)
      }
      assert.deepInclude(document.components.schemas["echo.message.reflect.Input"], { required: ["message"] })
      const refs = [...response.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] ?? "")
      assert.deepStrictEqual(refs.filter((name) => !(name in document.components.schemas)), [], "every $ref resolves")
      // an unsubscribe link answers every refusal with a page, as the document says
      const link = document.paths["/u/{sequence}/{person}/{token}"] ?? {}
      const answers = ["get", "post"].flatMap((method) =>
        Object.entries(Schema.decodeUnknownSync(Operation)(link[method]).responses).map((
          [status, r]
        ) => [method, status, Object.keys(r.content ?? {})])
      )
      assert.deepStrictEqual(answers.filter(([, , types]) => JSON.stringify(types) !== JSON.stringify([HTML])), [])
      assert.includeMembers(answers.map(([method, status]) => `${method} ${status}`), ["post 415", "post 422", "get 404", "post 503"])
    }))

  it.effect("GET /docs is an HTML page", () =>
    Effect.gen(function* () {
      const response = yield* rawRequest(HttpClientRequest.get("/docs"))
      assert.strictEqual(response.status, 200)
      assert.include(response.contentType, "text/html")
      assert.match(response.text, /<html/i)
    }))
})
