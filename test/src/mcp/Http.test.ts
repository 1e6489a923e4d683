import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { type CallToolResult, type Progress, ProtocolError, type Tool } from "@modelcontextprotocol/client"
import { Array as Arr, Effect, Schema } from "effect"
import packageJson from "../../../package.json" with { type: "json" }
import { ToolResponse } from "../../../schema/tools/Response.ts"
import {
  auditRowOf,
  bearer,
  callTool,
  callToolFailure,
  connect,
  ERAS,
  errorOf,
  issueKey,
  lastAuditRow,
  listTools,
  McpTest,
  mcpUrl
} from "./McpTestServer.ts"

const decodeResponse = Schema.decodeUnknown(ToolResponse)
const asRecord = Schema.decodeUnknown(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const documentsOf = (result: CallToolResult) =>
  Schema.decodeUnknown(Schema.Struct({ tools: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })) }))(
    result.structuredContent
  ).pipe(Effect.map((found) => found.tools))

const findTool = (tools: ReadonlyArray<Tool>, name: string) =>
  Arr.findFirst(tools, (t) => t.name === name).pipe(Effect.orElseFail(() => `tool ${name} is not listed`))

const pureAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }

const rawPost = (headers: Record<string, string>) =>
  Effect.flatMap(mcpUrl, (url) =>
    Effect.promise(async () => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
        })
      })
      return { status: response.status, body: await response.json() as unknown }
    }))

const MIB = 1024 * 1024

/** A tools/call whose body is `size` bytes or more; chunked (no content-length) when `chunked`. */
const bigCall = (key: string, size: number, chunked: boolean) =>
  Effect.flatMap(mcpUrl, (url) =>
    Effect.promise(async () => {
      const text = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo.message.reflect", arguments: { message: "x".repeat(size) } }
      })
      const bytes = new TextEncoder().encode(text)
      const body = chunked
        ? new ReadableStream<Uint8Array>({
          start: (controller) => {
            for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024))
            controller.close()
          }
        })
        : bytes
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer(key) },
        body,
        ...(chunked ? { duplex: "half" } : {})
      }).catch(() => null)
      return response === null ? null : { status: response.status, body: await response.json().catch(() => null) as unknown }
    }))

layer(McpTest, { excludeTestServices: true })("MCP over Streamable HTTP", (it) => {
  for (const era of ERAS) {
    it.scoped(`${era}: negotiates its era and lists the external registry tools with hints, titles and schemas`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, bearer(yield* issueKey("acme", "free")))
        assert.strictEqual(client.getProtocolEra(), era)
        assert.deepInclude(client.getServerVersion(), { name: "brein", version: packageJson.version })
        const tools = yield* listTools(client)
        assert.sameMembers(tools.map((t) => t.name), [
          "core.timestamp.now",
          "echo.message.reflect",
          "vault.item.get",
          "steps.count.run",
          "search_docs"
        ])

        const now = yield* findTool(tools, "core.timestamp.now")
        assert.strictEqual(now.title, "Hora actual")
        assert.include(now.description, "current instant")
        assert.deepInclude(now.annotations, pureAnnotations)
        assert.strictEqual(now.inputSchema.type, "object")
        assert.hasAllKeys(now.inputSchema.properties, ["timezone"])
        assert.deepStrictEqual(now.outputSchema?.["required"], ["data", "meta"])
        const outputProperties = yield* asRecord(now.outputSchema?.properties)
        assert.hasAllKeys(outputProperties["data"], ["type", "required", "properties", "additionalProperties"])
        assert.includeMembers(Object.keys(outputProperties), ["data", "meta", "warnings", "next_actions", "hint"])

        const reflect = yield* findTool(tools, "echo.message.reflect")
        assert.deepStrictEqual(reflect.inputSchema.required, ["message"])
        const vault = yield* findTool(tools, "vault.item.get")
        assert.deepInclude(vault.annotations, { openWorldHint: true })
        assert.hasAllKeys(vault.inputSchema.properties, ["item", "connection"])
        const docs = yield* findTool(tools, "search_docs")
        assert.deepInclude(docs.annotations, pureAnnotations)
        assert.hasAllKeys(docs.inputSchema.properties, ["tool", "query"])
      }))

    it.scoped(`${era}: echo.message.reflect answers { data, meta } after its audit row is recorded with surface mcp`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, bearer(yield* issueKey("acme", "free")))
        yield* listTools(client) // the client validates structuredContent against the listed outputSchema
        const result = yield* callTool(client, "echo.message.reflect", { message: `hola ${era}` })
        assert.notStrictEqual(result.isError, true)
        const response = yield* decodeResponse(result.structuredContent)
        assert.deepStrictEqual(response.data, { message: `hola ${era}` })
        assert.strictEqual(response.meta.tool_id, "echo.message.reflect")
        assert.strictEqual(response.meta.plane, "action")
        assert.strictEqual(response.meta.audit_status, "recorded")
        const [text] = result.content
        assert.deepStrictEqual(text?.type === "text" ? JSON.parse(text.text) : null, result.structuredContent)
        const rows = yield* auditRowOf(response.meta.request_id)
        assert.deepStrictEqual(rows, [{
          toolId: "echo.message.reflect",
          surface: "mcp",
          outcome: "ok",
          errorTag: null,
          connectionId: null
        }])
      }))

    it.scoped(`${era}: core.timestamp.now with and without its optional input`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, bearer(yield* issueKey("acme", "free")))
        yield* listTools(client)
        const zoned = yield* decodeResponse(
          (yield* callTool(client, "core.timestamp.now", { timezone: "America/Santiago" })).structuredContent
        )
        assert.propertyVal(zoned.data, "timezone", "America/Santiago")
        assert.match(String((zoned.data as { iso: string }).iso), /-0[34]:00$/)
        const plain = yield* decodeResponse((yield* callTool(client, "core.timestamp.now", {})).structuredContent)
        assert.propertyVal(plain.data, "timezone", "UTC")
        assert.strictEqual(plain.meta.audit_status, "recorded")
        const rows = yield* auditRowOf(plain.meta.request_id)
        assert.strictEqual(rows[0]?.surface, "mcp")
      }))

    it.scoped(`${era}: bad input is an isError result carrying InvalidInput with the field's path, and is audited`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, bearer(yield* issueKey("acme", "free")))
        yield* listTools(client) // the client now holds every outputSchema
        const missing = yield* callTool(client, "echo.message.reflect", {})
        const error = yield* errorOf(missing)
        assert.strictEqual(error["_tag"], "InvalidInput")
        assert.deepStrictEqual(error["issues"], [{ path: "input.message", message: "is missing" }])
        assert.strictEqual(error["message"], "input.message is missing")
        const zone = yield* errorOf(yield* callTool(client, "core.timestamp.now", { timezone: "Mars/Olympus" }))
        assert.strictEqual(zone["_tag"], "InvalidInput")
        assert.include(String(zone["message"]), "input.timezone")
        const long = yield* callTool(client, "core.timestamp.now", { timezone: "x".repeat(900_000) })
        const longText = long.content[0]?.type === "text" ? long.content[0].text : ""
        assert.isBelow(longText.length, 4096, "the value sent is described by its size, not echoed")
        assert.include(String((yield* errorOf(long))["message"]), "(900,000 characters)")
        const extra = yield* errorOf(yield* callTool(client, "echo.message.reflect", { message: "x", connection: "conn_abc" }))
        assert.strictEqual(extra["_tag"], "InvalidInput", "only connector tools accept a connection argument")
        assert.include(String(extra["message"]), "input.connection")
        assert.strictEqual(extra["hint"], "echo.message.reflect takes: message (required).")
        const typo = yield* errorOf(yield* callTool(client, "echo.message.reflect", { mesage: "x" }))
        assert.include(String(typo["hint"]), "Did you mean message (not mesage)?")
        assert.deepStrictEqual(yield* lastAuditRow("echo.message.reflect"), [{
          surface: "mcp",
          outcome: "error",
          errorTag: "InvalidInput"
        }])
      }))

    it.scoped(`${era}: an argument named __proto__ is refused by name as REST refuses it, and audited`, () =>
      Effect.gen(function* () {
        const key = yield* issueKey("acme", "free")
        const client = yield* connect(era, bearer(key))
        // as JSON.parse reads `{"message": "x", "__proto__": {…}}`: an own field named __proto__
        const input = Object.fromEntries([["message", "x"], ["__proto__", { message: "y" }]])
        const error = yield* errorOf(yield* callTool(client, "echo.message.reflect", input))
        assert.strictEqual(error["_tag"], "InvalidInput")
        assert.deepStrictEqual(error["issues"], [{ path: "input.__proto__", message: "is not a field this input accepts" }])
        assert.deepStrictEqual(yield* lastAuditRow("echo.message.reflect"), [{
          surface: "mcp",
          outcome: "error",
          errorTag: "InvalidInput"
        }])
        const url = new URL("/api/v1/tools/echo.message.reflect/execute", yield* mcpUrl)
        const rest = yield* Effect.promise(async () => {
          const response = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", ...bearer(key) },
            body: JSON.stringify({ input })
          })
          return { status: response.status, body: await response.json() as unknown }
        })
        assert.strictEqual(rest.status, 422)
        assert.deepStrictEqual(error, rest.body, "the same typed error over MCP as over REST")
      }))

    it.scoped(`${era}: an unknown or in-process-only tool is a JSON-RPC -32602 error carrying ToolNotFound`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, bearer(yield* issueKey("acme", "free")))
        for (const name of ["nope.nothing.here", "hidden.secret.peek"]) {
          const error = yield* callToolFailure(client, name, {})
          assert.instanceOf(error.error, ProtocolError)
          const protocol = error.error instanceof ProtocolError ? error.error : null
          assert.strictEqual(protocol?.code, -32602)
          assert.deepInclude(protocol?.data, { _tag: "ToolNotFound", toolId: name })
          assert.notProperty(protocol?.data, "hint")
        }
        // a near miss: the message a client shows names the tool, never one the caller cannot reach
        const typo = yield* callToolFailure(client, "echo.mesage.reflect", {})
        const protocol = typo.error instanceof ProtocolError ? typo.error : null
        assert.include(protocol?.message, "no tool with id \"echo.mesage.reflect\". Did you mean echo.message.reflect?")
        assert.deepInclude(protocol?.data, { _tag: "ToolNotFound", hint: "Did you mean echo.message.reflect?" })
        const hidden = yield* callToolFailure(client, "hidden.secret.peak", {})
        assert.notInclude(hidden.error instanceof ProtocolError ? hidden.error.message : "", "hidden.secret.peek")
        // search_docs is no registry tool, but a name tools/list shows: near misses of it, of a tool id's shape or not
        for (const name of ["search_doc", "Search-Docs"]) {
          const near = yield* callToolFailure(client, name, {})
          assert.deepInclude(near.error instanceof ProtocolError ? near.error.data : null, {
            _tag: "ToolNotFound",
            hint: "Did you mean search_docs?"
          })
        }
      }))

    it.scoped(`${era}: a malformed X-Connect-Connection does not hide an unknown tool, and a tool without a connection ignores it`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, { ...bearer(yield* issueKey("acme", "free")), "X-Connect-Connection": "conn-" })
        yield* listTools(client)
        for (const name of ["nope.nothing.here", "hidden.secret.peek"]) {
          const error = yield* callToolFailure(client, name, {})
          assert.deepInclude(error.error instanceof ProtocolError ? error.error.data : null, { _tag: "ToolNotFound", toolId: name })
        }
        const echoed = yield* callTool(client, "echo.message.reflect", { message: "hi" })
        assert.notStrictEqual(echoed.isError, true, JSON.stringify(echoed.content))
      }))

    it.scoped(`${era}: search_docs answers a tool's definition, searches by words, and never shows in-process tools`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, bearer(yield* issueKey("acme", "free")))
        const listed = yield* listTools(client)
        const one = yield* callTool(client, "search_docs", { tool: "vault.item.get" })
        assert.notStrictEqual(one.isError, true)
        const [doc] = yield* documentsOf(one)
        assert.deepInclude(doc, {
          id: "vault.item.get",
          plane: "action",
          plan: "free",
          hints: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
          cost: { kind: "free" },
          level: 0,
          scope: null,
          policy: "pure",
          requiresConnection: true
        })
        assert.hasAllKeys(doc?.["inputSchema"], ["type", "required", "properties", "additionalProperties"])
        assert.isObject(doc?.["outputSchema"])
        // the input a tool is documented with is the one tools/list shows and a call accepts: a connector tool's `connection` too
        for (const tool of listed.filter((t) => t.name !== "search_docs")) {
          const [documented] = yield* Effect.flatMap(callTool(client, "search_docs", { tool: tool.name }), documentsOf)
          assert.deepStrictEqual(documented?.["inputSchema"], tool.inputSchema, tool.name)
        }

        const idsFor = (query: string) =>
          Effect.flatMap(callTool(client, "search_docs", { query }), documentsOf).pipe(
            Effect.map((docs) => docs.map((d) => d["id"]))
          )
        assert.strictEqual((yield* idsFor("TIME zone"))[0], "core.timestamp.now")
        assert.deepStrictEqual(yield* idsFor("secret peek hidden"), [])
        assert.deepStrictEqual(yield* idsFor("zzz"), [])
        assert.sameMembers(yield* idsFor(" "), ["core.timestamp.now", "echo.message.reflect", "vault.item.get", "steps.count.run"])

        for (const tool of ["nope.nothing.here", "hidden.secret.peek"]) {
          assert.deepInclude(yield* errorOf(yield* callTool(client, "search_docs", { tool })), { _tag: "ToolNotFound", toolId: tool })
        }
        assert.deepInclude(yield* errorOf(yield* callTool(client, "search_docs", { tool: "core.timestamp.nwo" })), {
          _tag: "ToolNotFound",
          hint: "Did you mean core.timestamp.now?"
        })
        const bad = yield* errorOf(yield* callTool(client, "search_docs", { tool: 42 }))
        assert.strictEqual(bad["_tag"], "InvalidInput")
        // a misspelt field is hinted as every tool's is
        const typo = yield* errorOf(yield* callTool(client, "search_docs", { tol: "usage" }))
        assert.deepInclude(typo, {
          _tag: "InvalidInput",
          message: "input.tol is not a field this input accepts",
          hint: "Did you mean tool (not tol)? search_docs takes: tool, query."
        })
        // refused as any tool's input is, not looked for
        for (const [args, said] of [[{ query: "time\u0000" }, "NUL character"], [{ tool: "core\ud800" }, "lone surrogate"]] as const) {
          const refused = yield* errorOf(yield* callTool(client, "search_docs", args))
          assert.strictEqual(refused["_tag"], "InvalidInput", said)
          assert.include(String(refused["message"]), `input.${Object.keys(args)[0]} must not contain `, said)
          assert.include(String(refused["message"]), said)
        }
      }))

    it.scoped(`${era}: a connector tool takes its connection from X-Connect-Connection or a connection argument`, () =>
      Effect.gen(function* () {
        const key = yield* issueKey("vaulted", "free")
        const sql = yield* SqlClient.SqlClient
        const [workspace] = yield* sql<{ id: string }>`SELECT id FROM workspaces WHERE name = 'vaulted'`
        const connection = `conn_${era}`
        yield* sql`INSERT INTO connections (id, workspace_id, connector) VALUES (${connection}, ${workspace?.id ?? ""}, 'vault')`

        const plain = yield* connect(era, bearer(key))
        yield* listTools(plain)
        const viaArgument = yield* decodeResponse((yield* callTool(plain, "vault.item.get", { item: "a", connection })).structuredContent)
        assert.deepStrictEqual(viaArgument.data, { item: "a", connection })
        assert.strictEqual((yield* auditRowOf(viaArgument.meta.request_id))[0]?.connectionId, connection)

        const without = yield* errorOf(yield* callTool(plain, "vault.item.get", { item: "a" }))
        assert.deepInclude(without, { _tag: "Forbidden", reason: "connection_required" })
        assert.include(String(without["hint"]), "POST /api/v1/connections")
        assert.deepInclude(without["next_actions"], {
          method: "POST",
          path: "/api/v1/connections",
          reason: "create a vault connection with the user's credentials"
        })
        const foreign = yield* errorOf(yield* callTool(plain, "vault.item.get", { item: "a", connection: "conn_notours" }))
        assert.deepInclude(foreign, { _tag: "Forbidden", reason: "connection_not_in_workspace" })
        const malformed = yield* errorOf(yield* callTool(plain, "vault.item.get", { item: "a", connection: "not-a-connection" }))
        assert.deepInclude(malformed, { _tag: "InvalidInput" })
        const badHeader = yield* connect(era, { ...bearer(key), "X-Connect-Connection": "conn-" })
        assert.deepInclude(yield* errorOf(yield* callTool(badHeader, "vault.item.get", { item: "a" })), {
          _tag: "InvalidInput",
          issues: [{ path: "X-Connect-Connection", message: "must be a connection id like conn_…" }]
        })

        const withHeader = yield* connect(era, { ...bearer(key), "X-Connect-Connection": connection })
        yield* listTools(withHeader)
        const viaHeader = yield* decodeResponse((yield* callTool(withHeader, "vault.item.get", { item: "b" })).structuredContent)
        assert.deepStrictEqual(viaHeader.data, { item: "b", connection })
      }))

    it.scoped(`${era}: a tool's progress reaches a client that asked for it`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, bearer(yield* issueKey("acme", "free")))
        yield* listTools(client)
        const seen: Array<Progress> = []
        const result = yield* callTool(client, "steps.count.run", { n: 3 }, { onprogress: (p) => void seen.push(p) })
        const response = yield* decodeResponse(result.structuredContent)
        assert.deepStrictEqual(response.data, { counted: 3 })
        assert.deepStrictEqual(seen, [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })))
        const quiet = yield* callTool(client, "steps.count.run", { n: 2 })
        assert.deepStrictEqual((yield* decodeResponse(quiet.structuredContent)).data, { counted: 2 })
      }))
  }

  it.scoped("a body over 1 MiB is PayloadTooLarge (413), declared or chunked, and the REST API answers on the same port", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("bulky", "free")
      const declared = yield* bigCall(key, MIB, false)
      assert.strictEqual(declared?.status, 413)
      assert.deepInclude(declared?.body, { _tag: "PayloadTooLarge", limitBytes: MIB })
      const chunked = yield* bigCall(key, MIB, true)
      assert.strictEqual(chunked?.status, 413, "a refusal, not a reset")
      assert.deepInclude(chunked?.body, { _tag: "PayloadTooLarge", limitBytes: MIB })
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT 1 FROM audit_log a JOIN workspaces w ON w.id = a.workspace_id WHERE w.name = 'bulky'`
      assert.strictEqual(rows.length, 0)

      const health = yield* Effect.flatMap(mcpUrl, (url) => Effect.promise(() => fetch(new URL("/health", url))))
      assert.strictEqual(health.status, 200)
    }))

  it.scoped("a missing or unknown key is 401 with a JSON Unauthorized body, and the client cannot connect", () =>
    Effect.gen(function* () {
      for (const headers of [{}, bearer("brein_sk_unknown"), { Authorization: "Basic abc" }]) {
        const { status, body } = yield* rawPost(headers)
        assert.strictEqual(status, 401)
        assert.deepInclude(body, { _tag: "Unauthorized" })
        assert.isString((body as { message?: unknown }).message)
      }
      for (const era of ERAS) {
        yield* Effect.flip(connect(era, bearer("brein_sk_unknown")))
      }
    }))
})
