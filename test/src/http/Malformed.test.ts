import { HttpClientRequest, HttpServer } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { connect } from "node:net"
import { HttpTest, rawRequest } from "./TestServer.ts"

const ErrorBody = Schema.parseJson(Schema.Struct({ _tag: Schema.Literal("BadRequest"), message: Schema.String }))

const port = Effect.flatMap(
  HttpServer.HttpServer,
  (server) =>
    server.address._tag === "TcpAddress" ? Effect.succeed(server.address.port) : Effect.dieMessage("the test server is not on TCP")
)

/** Bytes written on a socket of their own, and everything the server answers until it closes the socket. */
const exchange = (bytes: string) =>
  Effect.flatMap(port, (at) =>
    Effect.async<string, Error>((resume) => {
      const chunks: Array<Buffer> = []
      const socket = connect(at, "127.0.0.1", () => socket.write(bytes))
      socket.on("data", (chunk: Buffer) => chunks.push(chunk))
      // the server closes as soon as it has answered; bytes of ours it never read make that close a reset,
      // which may come before our own end: what it answered is still what was received
      socket.on("error", (error) => resume(chunks.length > 0 ? Effect.succeed(Buffer.concat(chunks).toString("utf8")) : Effect.fail(error)))
      socket.on("close", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
      return Effect.sync(() => socket.destroy())
    }))

const answerOf = (text: string) => {
  const [head = "", body = ""] = text.split("\r\n\r\n", 2)
  const [statusLine = "", ...headers] = head.split("\r\n")
  return { status: Number(statusLine.split(" ")[1]), headers: headers.map((h) => h.toLowerCase()), body }
}

layer(HttpTest, { excludeTestServices: true })("a request Node cannot parse", (it) => {
  it.effect("is answered with the API's JSON error and Node's status, and the connection is closed; the server goes on", () =>
    Effect.gen(function* () {
      const cases = [
        { name: "a header line without a colon", bytes: "GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", status: 400 },
        { name: "a request line that is no request line", bytes: "HELLO\r\n\r\n", status: 400 },
        { name: "headers over Node's 16 KB", bytes: `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, status: 431 }
      ]
      for (const c of cases) {
        const answer = answerOf(yield* exchange(c.bytes))
        assert.strictEqual(answer.status, c.status, c.name)
        assert.include(answer.headers, "content-type: application/json", c.name)
        assert.include(answer.headers, "connection: close", c.name)
        const error = yield* Schema.decodeUnknown(ErrorBody)(answer.body)
        assert.isAbove(error.message.length, 0, c.name)
      }
      // a well-formed request on a new connection is answered as ever
      const health = yield* rawRequest(HttpClientRequest.get("/health"))
      assert.strictEqual(health.status, 200)
    }))
})
