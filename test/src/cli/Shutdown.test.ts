import { Command, FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Stream } from "effect"
import { breinCommand } from "../../support/Bin.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { freePort, runBrein, tempDataDir } from "./Brein.ts"
import { RawSocket, refuses, requestHead } from "./RawHttp.ts"

const ECHO = JSON.stringify({ input: { message: "hola" } })
const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })

/** `brein serve` on its own embedded PostgreSQL, its stderr kept; stopped by the test with a signal to it alone. */
const serve = (grace: number) =>
  Effect.gen(function* () {
    const dataDir = yield* tempDataDir
    const port = yield* freePort
    const env = {
      DATABASE_URL: "",
      BREIN_DATA_DIR: dataDir,
      PORT: String(port),
      BREIN_SHUTDOWN_GRACE_MS: String(grace),
      BREIN_SEED_DIRECTORY: "false"
    }
    const child = yield* Command.start(breinCommand("serve").pipe(Command.env(env)))
    const stderr: Array<string> = []
    yield* child.stderr.pipe(Stream.decodeText(), Stream.runForEach((text) => Effect.sync(() => void stderr.push(text))), Effect.forkScoped)
    yield* child.stdout.pipe(Stream.runDrain, Effect.forkScoped)
    const health = Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/health`)).pipe(
      Effect.map((response) => response.status),
      Effect.orElseSucceed(() => 0)
    )
    // a serve that exits (or never answers) fails the test at once with what it said, not after the wait alone
    const said = () => `\n--- brein serve's stderr ---\n${stderr.join("")}`
    yield* waitUntil(health, (status) => status === 200, { what: "brein serve answering /health", every: "200 millis", tries: 300 }).pipe(
      Effect.raceFirst(
        Effect.flatMap(child.exitCode, (code) => Effect.dieMessage(`brein serve exited ${code} before it answered /health`))
      ),
      Effect.catchAllCause((cause) => Effect.dieMessage(`${Cause.pretty(cause)}${said()}`))
    )
    // the cluster may live elsewhere than the data folder (when the postgres user cannot reach it): the log names it
    const directory = /message="embedded PostgreSQL started" directory=(\S+)/.exec(stderr.join(""))?.[1] ?? `${dataDir}/pg`
    const fs = yield* FileSystem.FileSystem
    const postmaster = Number.parseInt((yield* fs.readFileString(`${directory}/postmaster.pid`)).split("\n")[0] ?? "", 10)
    return {
      port,
      env,
      postmaster,
      stderr: Effect.sync(() => stderr.join("")),
      terminate: Effect.sync(() => void process.kill(child.pid, "SIGTERM")),
      hangUp: Effect.sync(() => void process.kill(child.pid, "SIGHUP")),
      exitCode: child.exitCode
    }
  })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A request whose head the server has read (it said 100 Continue) and whose body has only begun. */
const halfSent = (port: number, method: string, path: string, headers: Record<string, string>, body: string) =>
  Effect.gen(function* () {
    const socket = yield* RawSocket.open(port)
    const head = {
      ...headers,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      expect: "100-continue"
    }
    yield* socket.send(requestHead(method, path, head))
    yield* waitUntil(Effect.sync(() => socket.continues), (n) => n === 1, { what: `the server reading the head of ${method} ${path}` })
    yield* socket.send(body.slice(0, 8))
    return { socket, rest: body.slice(8) }
  })

const idleKeptAlive = (port: number) =>
  Effect.gen(function* () {
    const socket = yield* RawSocket.open(port)
    yield* socket.send(requestHead("GET", "/health", {}))
    yield* waitUntil(Effect.sync(() => socket.answers.length), (n) => n === 1, { what: "an answer on a kept-alive socket" })
    assert.notStrictEqual(socket.answers[0]?.headers["connection"], "close")
    return socket
  })

describe("brein serve on SIGTERM", () => {
  it.scopedLive("answers every request it accepted, closes idle sockets, stops its PostgreSQL and exits 0", () =>
    Effect.gen(function* () {
      const brein = yield* serve(30_000)
      // the first start's note is logged once the demo workspace exists, which may follow /health
      const firstStart = yield* waitUntil(brein.stderr, (text) => text.includes("brein keys create --workspace demo"), {
        what: "the first start's note on how to get a key",
        every: "100 millis",
        tries: 100
      })
      assert.include(firstStart, "brein keys create --workspace demo", "without a terminal the first start says how to get a key")
      assert.notInclude(firstStart, "brein_sk_", "without a terminal no key reaches the log stream")
      const made = yield* runBrein(brein.env, "keys", "create", "--workspace", "demo")
      assert.strictEqual(made.exitCode, 0, made.stderr)
      const auth = { authorization: `Bearer ${made.stdout.trim()}` }

      const idle = yield* Effect.all(Array.from({ length: 3 }, () => idleKeptAlive(brein.port)))
      const slow = yield* Effect.all(
        Array.from({ length: 6 }, () => halfSent(brein.port, "POST", "/api/v1/tools/echo.message.reflect/execute", auth, ECHO)),
        { concurrency: "unbounded" }
      )
      const mcp = yield* halfSent(brein.port, "POST", "/mcp", { ...auth, accept: "application/json, text/event-stream" }, TOOLS_LIST)

      yield* brein.terminate
      yield* waitUntil(refuses(brein.port), (refused) => refused, { what: "the server refusing new connections" })

      // Every slow client finishes its body now; half of them pipeline one more request on the same socket.
      const pipelined = slow.slice(0, 3)
      yield* Effect.forEach(slow, ({ socket, rest }, i) =>
        socket.send(i < pipelined.length ? `${rest}${requestHead("GET", "/health", {})}` : rest))
      yield* mcp.socket.send(mcp.rest)

      const expected = slow.map((_, i) => (i < pipelined.length ? 2 : 1))
      yield* waitUntil(
        Effect.sync(() =>
          slow.map(({ socket }) => socket.answers.length)
        ),
        (counts) => counts.every((n, i) => n === expected[i]),
        { what: "an answer to every request sent on a slow socket, the pipelined ones too" }
      )
      yield* waitUntil(Effect.sync(() => mcp.socket.answers.length), (n) => n === 1, { what: "an answer to the MCP request" })
      for (const { socket } of slow) {
        assert.strictEqual(socket.answers[0]?.status, 200)
        assert.strictEqual(socket.answers.at(-1)?.headers["connection"], "close", "the last answer on a draining socket closes it")
      }
      yield* waitUntil(Effect.sync(() => idle.every((socket) => socket.closed)), (closed) => closed, {
        what: "idle kept-alive sockets closed"
      })
      assert.isTrue(idle.every((socket) => socket.answers.length === 1), "an idle socket is closed without a stray answer")

      assert.strictEqual(Number(yield* brein.exitCode), 0, yield* brein.stderr)
      assert.isFalse(alive(brein.postmaster), "the embedded PostgreSQL it started is stopped")
      assert.include(yield* brein.stderr, "every accepted request was answered")
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })

  it.scopedLive(
    "closes a client that never finishes its request once the grace period is over, and still exits 0",
    () =>
      Effect.gen(function* () {
        const brein = yield* serve(1_000)
        const made = yield* runBrein(brein.env, "keys", "create", "--workspace", "demo")
        const auth = { authorization: `Bearer ${made.stdout.trim()}` }
        const stuck = yield* halfSent(brein.port, "POST", "/api/v1/tools/echo.message.reflect/execute", auth, ECHO)
        yield* brein.terminate
        assert.strictEqual(Number(yield* brein.exitCode), 0, yield* brein.stderr)
        yield* waitUntil(Effect.sync(() => stuck.socket.closed), (closed) => closed, { what: "the stuck socket closed" })
        assert.include(yield* brein.stderr, "shutdown grace period over")
        assert.isFalse(alive(brein.postmaster))
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )
})

describe("brein serve on SIGHUP (its terminal closed)", () => {
  it.scopedLive("stops as on SIGTERM: answers what it accepted, stops its PostgreSQL and exits 0", () =>
    Effect.gen(function* () {
      const brein = yield* serve(30_000)
      const made = yield* runBrein(brein.env, "keys", "create", "--workspace", "demo")
      assert.strictEqual(made.exitCode, 0, made.stderr)
      const auth = { authorization: `Bearer ${made.stdout.trim()}` }
      const slow = yield* halfSent(brein.port, "POST", "/api/v1/tools/echo.message.reflect/execute", auth, ECHO)
      yield* brein.hangUp
      yield* waitUntil(refuses(brein.port), (refused) => refused, { what: "the server refusing new connections" })
      yield* slow.socket.send(slow.rest)
      yield* waitUntil(Effect.sync(() => slow.socket.answers.length), (n) => n === 1, { what: "an answer to the request it accepted" })
      assert.strictEqual(slow.socket.answers[0]?.status, 200)
      assert.strictEqual(Number(yield* brein.exitCode), 0, yield* brein.stderr)
      assert.isFalse(alive(brein.postmaster), "the embedded PostgreSQL it started is stopped, not left without an owner")
      assert.include(yield* brein.stderr, "stopping embedded PostgreSQL")
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })
})
