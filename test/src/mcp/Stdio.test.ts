import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Context, Deferred, Effect, identity, Layer, Option, Redacted, Ref, Schedule, Schema, Stream } from "effect"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { ServicesLive } from "../../../layers/App.ts"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { ToolResponse } from "../../../schema/tools/Response.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { MAX_LINE_BYTES } from "../../../src/mcp/Stdio.ts"
import { breinBin } from "../../support/Bin.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { connectInProcess } from "./McpTestServer.ts"

class DatabaseUrl extends Context.Tag("test/mcp/DatabaseUrl")<DatabaseUrl, string>() {}

const StdioTest = Layer.unwrapScoped(
  Effect.map(freshDatabase, (url) =>
    ServicesLive.pipe(
      Layer.provideMerge(databaseFromUrl(url)),
      Layer.merge(Layer.succeed(DatabaseUrl, Redacted.value(url))),
      Layer.merge(NodeContext.layer)
    ))
)

const root = fileURLToPath(new URL("../../..", import.meta.url))
const mcpArgs = [breinBin, "mcp"]
/** Nothing listens on port 1: a connection to it is refused at once, as to a database that is down. */
const CLOSED_DATABASE = "postgres://postgres@127.0.0.1:1/postgres"

const decodeResponse = Schema.decodeUnknown(ToolResponse)

const issueKeyIn = (workspace: string) =>
  Effect.flatMap(Workspaces, (w) => w.issueKey({ workspace, plan: Option.some("free") })).pipe(
    Effect.map((issued) => Redacted.value(issued.key))
  )

const issueKey = issueKeyIn("stdio")

/** `brein mcp` as an MCP host starts it: a child process whose stdout is the wire. */
const spawnClient = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: mcpArgs,
        cwd: root,
        env: { ...getDefaultEnvironment(), ...env },
        stderr: "pipe"
      })
      const stderr: Array<string> = []
      transport.stderr?.on("data", (chunk) => void stderr.push(String(chunk)))
      const wireErrors: Array<Error> = []
      const client = new Client({ name: "brein-stdio-test", version: "0.0.0" })
      client.onerror = (error) => void wireErrors.push(error)
      await client.connect(transport)
      return { client, stderr, wireErrors }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )

const text = (stream: Stream.Stream<Uint8Array, unknown>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** Runs `brein mcp` with `stdin` (closed at once by default) until it exits: the exit code and both outputs. */
const runToExit = (env: Record<string, string>, stdin: Stream.Stream<Uint8Array> = Stream.empty) =>
  Effect.gen(function* () {
    const child = yield* Command.start(
      Command.make(process.execPath, ...mcpArgs).pipe(Command.workingDirectory(root), Command.env(env), Command.stdin(stdin))
    )
    const [stdout, stderr, exitCode] = yield* Effect.all([text(child.stdout), text(child.stderr), child.exitCode], {
      concurrency: "unbounded"
    })
    return { stdout, stderr, exitCode }
  }).pipe(Effect.scoped)

const bytes = (line: string) => new TextEncoder().encode(line)
const overlong = bytes(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"${"x".repeat(MAX_LINE_BYTES)}"}}\n`)
const initialize = bytes(`${
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
  })
}\n`)

const WireMessage = Schema.parseJson(Schema.Struct({
  id: Schema.optional(Schema.Union(Schema.Number, Schema.String)),
  result: Schema.optional(Schema.Struct({ serverInfo: Schema.Struct({ name: Schema.String }) })),
  error: Schema.optional(Schema.Struct({ code: Schema.Number, message: Schema.String }))
}))
const decodeWire = Schema.decodeUnknown(WireMessage)

/**
 * `brein mcp` given `first`, then an initialize; stdin stays open until that initialize is answered, then
 * ends. The first message on the wire is the refusal (a parse error without an id unless `refused` says
 * otherwise), the second the reply.
 */
const refusedThenServed = (
  first: Uint8Array,
  refused: { readonly code: number; readonly id?: number | string } = { code: -32700 }
) =>
  Effect.gen(function* () {
    const databaseUrl = yield* DatabaseUrl
    const key = yield* issueKey
    const answered = yield* Deferred.make<void>()
    const stdin = Stream.make(first, initialize).pipe(
      Stream.concat(Stream.fromEffect(Deferred.await(answered)).pipe(Stream.drain))
    )
    const child = yield* Command.start(
      Command.make(process.execPath, ...mcpArgs).pipe(
        Command.workingDirectory(root),
        Command.env({ DATABASE_URL: databaseUrl, BREIN_API_KEY: key }),
        Command.stdin(stdin)
      )
    )
    const [messages, stderr, exitCode] = yield* Effect.all([
      child.stdout.pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.mapEffect(decodeWire),
        Stream.tap((message) => message.id === 1 ? Deferred.succeed(answered, undefined) : Effect.void),
        Stream.runCollect
      ),
      text(child.stderr),
      child.exitCode
    ], { concurrency: "unbounded" })
    const [refusal, reply, ...rest] = messages
    assert.strictEqual(refusal?.id, refused.id)
    assert.strictEqual(refusal?.error?.code, refused.code)
    assert.strictEqual(reply?.id, 1)
    assert.strictEqual(reply?.result?.serverInfo.name, "brein")
    assert.strictEqual(exitCode, 0)
    return { refusal, rest, stderr }
  }).pipe(Effect.scoped)

layer(StdioTest, { excludeTestServices: true, timeout: 60_000 })("brein mcp (stdio)", (it) => {
  it.scoped("lists and calls tools for the key's workspace; only JSON-RPC on stdout, logs on stderr", () =>
    Effect.gen(function* () {
      const databaseUrl = yield* DatabaseUrl
      const key = yield* issueKey
      const { client, stderr, wireErrors } = yield* spawnClient({ DATABASE_URL: databaseUrl, BREIN_API_KEY: key })
      assert.strictEqual(client.getServerVersion()?.name, "brein")

      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.includeMembers(tools.map((t) => t.name), ["core.timestamp.now", "echo.message.reflect", "search_docs"])

      const result = yield* Effect.promise(() => client.callTool({ name: "echo.message.reflect", arguments: { message: "por stdio" } }))
      const response = yield* decodeResponse(result.structuredContent)
      assert.deepStrictEqual(response.data, { message: "por stdio" })
      assert.strictEqual(response.meta.audit_status, "recorded")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<
        { surface: string; toolId: string }
      >`SELECT surface, tool_id FROM audit_log WHERE request_id = ${response.meta.request_id}`
      assert.deepStrictEqual(rows, [{ surface: "mcp", toolId: "echo.message.reflect" }])

      const bad = yield* Effect.promise(() => client.callTool({ name: "echo.message.reflect", arguments: {} }))
      assert.isTrue(bad.isError)

      assert.deepStrictEqual(wireErrors, [], "stdout carried something that is not JSON-RPC")
      assert.include(stderr.join(""), "serving MCP over stdio")
    }))

  for (const era of ["legacy", "modern"] as const) {
    it.scoped(`${era}: the stdio entry pins the era the client opens with (in process)`, () =>
      Effect.gen(function* () {
        const principal = yield* Effect.flatMap(Workspaces, (w) => Effect.flatMap(issueKey, w.authenticate))
        const client = yield* connectInProcess(era, principal)
        assert.strictEqual(client.getProtocolEra(), era)
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.include(tools.map((t) => t.name), "search_docs")
        const result = yield* Effect.promise(() => client.callTool({ name: "core.timestamp.now", arguments: {} }))
        assert.strictEqual((yield* decodeResponse(result.structuredContent)).meta.audit_status, "recorded")
      }))
  }

  it.scoped("a database away when the key is looked up again before a call answers the tool error ServiceUnavailable", () =>
    Effect.gen(function* () {
      const principal = yield* Effect.flatMap(Workspaces, (w) => Effect.flatMap(issueKey, w.authenticate))
      // the lookup as an outage makes it fail: its connection to the database is refused
      const lookups = yield* Ref.make(0)
      const away = Ref.update(lookups, (n) => n + 1).pipe(
        Effect.zipRight(Effect.tryPromise({ try: () => new pg.Client({ connectionString: CLOSED_DATABASE }).connect(), catch: identity })),
        Effect.orDie,
        Effect.as(principal)
      )
      const client = yield* connectInProcess("legacy", principal, away)
      const result = yield* Effect.promise(() => client.callTool({ name: "core.timestamp.now", arguments: {} }))
      assert.strictEqual(yield* Ref.get(lookups), 1, "the key was looked up before the call")
      assert.isTrue(result.isError)
      assert.include(JSON.stringify(result.content), "ServiceUnavailable")
    }))

  it.effect("a missing or unknown BREIN_API_KEY is a clear message on stderr and exit code 1", () =>
    Effect.gen(function* () {
      const databaseUrl = yield* DatabaseUrl
      const [missing, unknown] = yield* Effect.all([
        runToExit({ DATABASE_URL: databaseUrl, BREIN_API_KEY: "" }),
        runToExit({ DATABASE_URL: databaseUrl, BREIN_API_KEY: "brein_sk_unknown" })
      ], { concurrency: 2 })
      assert.strictEqual(missing.exitCode, 1)
      assert.include(missing.stderr, "brein: BREIN_API_KEY is not set")
      assert.strictEqual(missing.stdout, "")
      assert.strictEqual(unknown.exitCode, 1)
      assert.include(unknown.stderr, "brein: BREIN_API_KEY was not accepted")
      assert.strictEqual(unknown.stdout, "")
    }))

  it.effect("a revoked BREIN_API_KEY is refused as every command fails: one brein: line, exit code 1", () =>
    Effect.gen(function* () {
      const databaseUrl = yield* DatabaseUrl
      const key = yield* issueKeyIn("stdio-revoked")
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE workspace_id = (SELECT id FROM workspaces WHERE name = 'stdio-revoked')`
      const revoked = yield* runToExit({ DATABASE_URL: databaseUrl, BREIN_API_KEY: key })
      assert.strictEqual(revoked.exitCode, 1)
      assert.deepStrictEqual(
        revoked.stderr.split("\n").filter((line) => line.startsWith("brein: ")),
        ["brein: BREIN_API_KEY was not accepted: the key is unknown or revoked"]
      )
      assert.strictEqual(revoked.stdout, "")
    }))

  it.scoped("a key revoked while brein mcp runs is refused from its next call (a JSON-RPC error saying so), not served on", () =>
    Effect.gen(function* () {
      const databaseUrl = yield* DatabaseUrl
      const key = yield* issueKeyIn("stdio-revoked-live")
      const { client } = yield* spawnClient({ DATABASE_URL: databaseUrl, BREIN_API_KEY: key })
      const call = Effect.tryPromise(() => client.callTool({ name: "core.timestamp.now", arguments: {} }))
      assert.strictEqual((yield* decodeResponse((yield* call).structuredContent)).meta.audit_status, "recorded")
      const workspaces = yield* Workspaces
      yield* workspaces.revokeByKey(Redacted.make(key))
      // the revocation reaches the running process as a signal: its calls are refused once it has
      const refused = yield* Effect.flip(call).pipe(
        Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 100 }),
        Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the revoked key was still served") })
      )
      assert.include(String(refused.error), "BREIN_API_KEY is no longer accepted")
    }))

  it.effect("a line over 10 MiB is a parse error on the wire; the next line is served and the end of stdin ends brein mcp", () =>
    Effect.gen(function* () {
      const { refusal, rest, stderr } = yield* refusedThenServed(overlong)
      assert.include(refusal?.error?.message, `longer than ${MAX_LINE_BYTES} bytes`)
      assert.deepStrictEqual(rest, [])
      assert.include(stderr, "was skipped unread")
      assert.notInclude(stderr, "ReadBuffer")
    }))

  it.effect("a line that is not UTF-8 is a parse error on the wire, not a call with U+FFFD in it; the next line is served", () =>
    Effect.gen(function* () {
      // tools/call whose text is right but whose ñ is the one Latin-1 byte 0xF1
      const latin1 = Buffer.from(
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo.message.reflect","arguments":{"message":"Señor"}}}\n`,
        "latin1"
      )
      const { refusal, rest, stderr } = yield* refusedThenServed(new Uint8Array(latin1))
      assert.include(refusal?.error?.message, "not UTF-8")
      assert.deepStrictEqual(rest, [], "the call never ran: no answer to id 7")
      assert.include(stderr, "a line that is not UTF-8 was skipped unread")
    }))

  it.effect("a line that is not JSON is a parse error on the wire (the SDK dropped it without a word); a blank line is skipped", () =>
    Effect.gen(function* () {
      const { refusal, rest, stderr } = yield* refusedThenServed(bytes("\n  \r\nhello brein\n"))
      assert.include(refusal?.error?.message, "a line that is not JSON was skipped")
      assert.deepStrictEqual(rest, [], "one refusal: the blank lines are not answered")
      assert.include(stderr, "a line that is not JSON was skipped")
    }))

  it.effect("JSON that is not JSON-RPC is an invalid request answered with its id, not a schema dump on stderr", () =>
    Effect.gen(function* () {
      const { refusal, rest, stderr } = yield* refusedThenServed(
        bytes(`{"jsonrpc":"1.0","id":"q-7","method":"tools/list"}\n`),
        { code: -32600, id: "q-7" }
      )
      assert.include(refusal?.error?.message, "not a JSON-RPC 2.0 message")
      assert.deepStrictEqual(rest, [])
      assert.notInclude(stderr, "invalid_union")
    }))

  it.effect("a JSON array (a batch, which MCP does not take) is an invalid request without an id", () =>
    Effect.gen(function* () {
      const { refusal } = yield* refusedThenServed(bytes(`[{"jsonrpc":"2.0","id":3,"method":"ping"}]\n`), { code: -32600 })
      assert.include(refusal?.error?.message, "not a JSON-RPC 2.0 message")
    }))

  it.effect("stdin that ends inside a line over 10 MiB ends brein mcp (exit code 0)", () =>
    Effect.gen(function* () {
      const databaseUrl = yield* DatabaseUrl
      const key = yield* issueKey
      const cut = yield* runToExit({ DATABASE_URL: databaseUrl, BREIN_API_KEY: key }, Stream.make(overlong.subarray(0, -2)))
      assert.strictEqual(cut.exitCode, 0)
      assert.include(cut.stdout, `"code":-32700`)
    }))
})
