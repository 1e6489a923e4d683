import { HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Redacted, Schema, Stream } from "effect"
import { gzipSync } from "node:zlib"
import { HttpTest, issueKey, rawRequest } from "./TestServer.ts"

const BadRequestBody = Schema.parseJson(Schema.Struct({ _tag: Schema.Literal("BadRequest"), message: Schema.String }))
const UnsupportedBody = Schema.parseJson(Schema.Struct({ _tag: Schema.Literal("UnsupportedMediaType"), message: Schema.String }))

/** JSON whose text is right but whose bytes are Latin-1: "Señor" with ñ as the one byte 0xF1. */
const latin1 = (json: string) => Buffer.from(json, "latin1")

const post = (path: string, key: string, body: Uint8Array, chunked = false) =>
  rawRequest(
    HttpClientRequest.post(path).pipe(
      HttpClientRequest.bearerToken(key),
      chunked
        // a stream has no length: the body goes chunked
        ? HttpClientRequest.bodyStream(Stream.make(body), { contentType: "application/json" })
        : HttpClientRequest.bodyUint8Array(body, "application/json")
    )
  )

layer(HttpTest, { excludeTestServices: true })("a request body that is not UTF-8", (it) => {
  it.effect("is 400 BadRequest naming the byte, on the execute route, on /mcp and on the other routes; nothing is stored", () =>
    Effect.gen(function* () {
      const key = Redacted.value(yield* issueKey("utf8-bodies", "paid"))
      const sql = yield* SqlClient.SqlClient
      const rowsBefore = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`)[0]?.n
      const connectionsBefore = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM connections`)[0]?.n
      const cases = [
        { path: "/api/v1/tools/echo.message.reflect/execute", body: latin1(`{"input":{"message":"Señor"}}`) },
        {
          path: "/mcp",
          body: latin1(
            `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo.message.reflect","arguments":{"message":"Señor"}}}`
          )
        },
        { path: "/api/v1/connections", body: latin1(`{"connector":"sii","label":"Señor"}`) }
      ]
      for (const c of cases) {
        for (const chunked of [false, true]) {
          const answer = yield* post(c.path, key, c.body, chunked)
          const name = `${c.path}${chunked ? " (chunked)" : ""}`
          assert.strictEqual(answer.status, 400, `${name}: ${answer.text}`)
          const error = yield* Schema.decodeUnknown(BadRequestBody)(answer.text)
          assert.include(error.message, `not UTF-8 (the character at byte ${c.body.indexOf(0xf1)}, which begins 0xF1)`, name)
        }
      }
      assert.strictEqual((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`)[0]?.n, rowsBefore, "no call ran")
      assert.strictEqual((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM connections`)[0]?.n, connectionsBefore)
      // the same text in UTF-8 is answered, its ñ whole
      const answered = yield* post(
        "/api/v1/tools/echo.message.reflect/execute",
        key,
        Buffer.from(`{"input":{"message":"Señor"}}`, "utf8")
      )
      assert.strictEqual(answered.status, 200, answered.text)
      assert.include(answered.text, `"message":"Señor"`)
    }))

  it.effect("a UTF-8 body that begins with a byte order mark is read without it on the execute route, as on /mcp and the other routes", () =>
    Effect.gen(function* () {
      const key = Redacted.value(yield* issueKey("utf8-bom", "free"))
      const bom = (json: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json, "utf8")])
      const executed = yield* post("/api/v1/tools/echo.message.reflect/execute", key, bom(`{"input":{"message":"Señor"}}`))
      assert.strictEqual(executed.status, 200, executed.text)
      assert.include(executed.text, `"message":"Señor"`)
      const opened = yield* post("/api/v1/sessions", key, bom(`{"title":"Señor"}`))
      assert.strictEqual(opened.status, 201, opened.text)
      const listed = yield* rawRequest(
        HttpClientRequest.post("/mcp").pipe(
          HttpClientRequest.bearerToken(key),
          HttpClientRequest.setHeader("accept", "application/json, text/event-stream"),
          HttpClientRequest.bodyUint8Array(bom(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), "application/json")
        )
      )
      assert.strictEqual(listed.status, 200, listed.text)
      assert.include(listed.text, "echo.message.reflect")
    }))

  it.effect("a compressed body is 415 UnsupportedMediaType naming its Content-Encoding, on execute, /mcp and the other routes; nothing runs", () =>
    Effect.gen(function* () {
      const key = Redacted.value(yield* issueKey("gzip-bodies", "paid"))
      const sql = yield* SqlClient.SqlClient
      const rowsBefore = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`)[0]?.n
      const cases = [
        { path: "/api/v1/tools/echo.message.reflect/execute", json: `{"input":{"message":"hola"}}` },
        {
          path: "/mcp",
          json: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo.message.reflect","arguments":{"message":"hola"}}}`
        },
        { path: "/api/v1/sessions", json: `{}` }
      ]
      for (const c of cases) {
        for (const encoding of ["gzip", "GZIP", "identity, gzip"]) {
          const answer = yield* rawRequest(
            HttpClientRequest.post(c.path).pipe(
              HttpClientRequest.bearerToken(key),
              HttpClientRequest.setHeaders({ "content-encoding": encoding, accept: "application/json, text/event-stream" }),
              HttpClientRequest.bodyUint8Array(gzipSync(c.json), "application/json")
            )
          )
          assert.strictEqual(answer.status, 415, `${c.path} ${encoding}: ${answer.text}`)
          const error = yield* Schema.decodeUnknown(UnsupportedBody)(answer.text)
          assert.include(error.message, `not Content-Encoding ${JSON.stringify(encoding)}`)
        }
      }
      assert.strictEqual((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log`)[0]?.n, rowsBefore, "no call ran")
      const plain = yield* rawRequest(
        HttpClientRequest.post("/api/v1/tools/echo.message.reflect/execute").pipe(
          HttpClientRequest.bearerToken(key),
          HttpClientRequest.setHeader("content-encoding", "identity"),
          HttpClientRequest.bodyText(`{"input":{"message":"hola"}}`, "application/json")
        )
      )
      assert.strictEqual(plain.status, 200, plain.text)
    }))

  it.effect("a GET that carries a body, chunked or not, is answered as one without it (a chunked one was an empty 500)", () =>
    Effect.gen(function* () {
      const key = Redacted.value(yield* issueKey("utf8-get-body", "free"))
      for (
        const body of [HttpClientRequest.bodyText("{}", "application/json"), HttpClientRequest.bodyStream(Stream.make(Buffer.from("{}")))]
      ) {
        const answer = yield* rawRequest(HttpClientRequest.get("/api/v1/tools").pipe(HttpClientRequest.bearerToken(key), body))
        assert.strictEqual(answer.status, 200, answer.text)
        assert.include(answer.text, "echo.message.reflect")
      }
    }))
})
