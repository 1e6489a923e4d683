import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Context, Effect, Layer, Option, Redacted, Schema, Stream } from "effect"
import { fileURLToPath } from "node:url"
import { ServicesLive } from "../../../layers/App.ts"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { ToolResponse } from "../../../schema/tools/Response.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
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

const decodeResponse = Schema.decodeUnknown(ToolResponse)

const issueKey = Effect.flatMap(Workspaces, (w) => w.issueKey({ workspace: "stdio", plan: Option.some("free") })).pipe(
  Effect.map((issued) => Redacted.value(issued.key))
)

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

/** Runs `brein mcp` with stdin closed at once: the exit code and both outputs. */
const runToExit = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const child = yield* Command.start(
      Command.make(process.execPath, ...mcpArgs).pipe(Command.workingDirectory(root), Command.env(env))
    )
    const [stdout, stderr, exitCode] = yield* Effect.all([text(child.stdout), text(child.stderr), child.exitCode], {
      concurrency: "unbounded"
    })
    return { stdout, stderr, exitCode }
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

  it.effect("a missing or unknown BREIN_API_KEY is a clear message on stderr and exit code 1", () =>
    Effect.gen(function* () {
      const databaseUrl = yield* DatabaseUrl
      const [missing, unknown] = yield* Effect.all([
        runToExit({ DATABASE_URL: databaseUrl, BREIN_API_KEY: "" }),
        runToExit({ DATABASE_URL: databaseUrl, BREIN_API_KEY: "brein_sk_unknown" })
      ], { concurrency: 2 })
      assert.strictEqual(missing.exitCode, 1)
      assert.include(missing.stderr, "BREIN_API_KEY is not set")
      assert.strictEqual(missing.stdout, "")
      assert.strictEqual(unknown.exitCode, 1)
      assert.include(unknown.stderr, "BREIN_API_KEY was not accepted")
      assert.strictEqual(unknown.stdout, "")
    }))
})
