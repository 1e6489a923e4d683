import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { ConnectionId, RequestId, type WorkspaceId } from "../../../schema/Ids.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { SUITE_NOW } from "../../support/SuiteClock.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { createScratchTables, FixtureRegistry } from "./Fixtures.ts"

const Services = servicesWith(FixtureRegistry).pipe(Layer.provideMerge(TestDatabase))

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")
const newRequestId = () => RequestId.make(`req_${randomBytes(8).toString("hex")}`)

const insertConnection = (workspaceId: WorkspaceId, connector: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = ConnectionId.make(`conn_${randomBytes(6).toString("hex")}`)
    yield* sql`INSERT INTO connections (id, workspace_id, connector) VALUES (${id}, ${workspaceId}, ${connector})`
    return id
  })

const auditRows = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<
        {
          outcome: string
          errorTag: string | null
          inputDigest: string
          outputDigest: string | null
          toolId: string
          surface: string
          connectionId: string | null
          workspaceId: string
          whole: string
        }
      >`
      SELECT outcome, error_tag, input_digest, output_digest, tool_id, surface, connection_id, workspace_id, row_to_json(a)::text AS whole
      FROM audit_log a WHERE request_id = ${requestId}`
  )

layer(Services)("Executor", (it) => {
  it.effect("a decode error names the bad field", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const wrongType = yield* Effect.flip(executor.call("echo.message.reflect", { message: 42 }, callContext(principal)))
      assert.strictEqual(wrongType._tag, "InvalidInput")
      if (wrongType._tag !== "InvalidInput") return
      assert.deepStrictEqual(wrongType.issues.map((i) => i.path), ["input.message"])
      assert.include(wrongType.message, "input.message")

      const extra = yield* Effect.flip(executor.call("echo.message.reflect", { message: "hola", mesage: "typo" }, callContext(principal)))
      assert.strictEqual(extra._tag, "InvalidInput")
      if (extra._tag === "InvalidInput") {
        assert.deepStrictEqual(extra.issues.map((i) => i.path), ["input.mesage"])
        assert.strictEqual(extra.hint, "Did you mean message (not mesage)? echo.message.reflect takes: message (required).")
      }

      // A tool without fields publishes additionalProperties: false and holds to it.
      for (const [raw, path] of [[{ page: 2 }, "input.page"], [42, "input"], ["{}", "input"]] as const) {
        const error = yield* Effect.flip(executor.call("annotated_answer", raw, callContext(principal)))
        assert.strictEqual(error._tag, "InvalidInput")
        if (error._tag === "InvalidInput") assert.deepStrictEqual(error.issues.map((i) => i.path), [path])
      }
      const unknownField = yield* Effect.flip(executor.call("annotated_answer", { page: 2 }, callContext(principal)))
      if (unknownField._tag === "InvalidInput") {
        assert.deepStrictEqual(unknownField.issues, [{ path: "input.page", message: "is not a field this input accepts" }])
      }
    }))

  // PostgreSQL's text cannot hold it: a tool that stored the string failed with a 500 (an in-process call is checked too)
  // A lone surrogate, likewise: UTF-8 cannot encode it, and the database stored U+FFFD, not the text sent and digested.
  it.effect("the NUL character or a lone surrogate in a string or a field's name is refused as an input error, and the refusal is audited", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const nul = "must not contain the NUL character (\\u0000), which cannot be stored"
      const lone = "must not contain a lone surrogate (\\ud800 to \\udfff without its pair), which is no Unicode text"
      const refused = [
        [{ message: "a\u0000b" }, "input.message", nul],
        [{ message: "ok", ["x\u0000"]: 1 }, "input.x\\u0000", nul],
        [{ message: "a\ud800b" }, "input.message", lone],
        [{ message: "\udc00" }, "input.message", lone],
        [{ message: "ok", ["x\udbff"]: 1 }, "input.x\\udbff", lone]
      ] as const
      for (const [raw, path, message] of refused) {
        const requestId = newRequestId()
        const error = yield* Effect.flip(executor.call("echo.message.reflect", raw, { ...callContext(principal), requestId }))
        assert.strictEqual(error._tag, "InvalidInput")
        if (error._tag === "InvalidInput") assert.deepStrictEqual(error.issues, [{ path, message }])
        const [row] = yield* auditRows(requestId)
        assert.deepStrictEqual([row?.outcome, row?.errorTag], ["error", "InvalidInput"])
      }
      // a pair (an emoji) is text like any other
      const paired = yield* executor.call("echo.message.reflect", { message: "hola \ud83d\ude00" }, callContext(principal))
      assert.deepStrictEqual(paired.data, { message: "hola \ud83d\ude00" })
    }))

  it.effect("an unknown tool is ToolNotFound", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const error = yield* Effect.flip((yield* Executor).call("echo.message.shout", { message: "x" }, callContext(principal)))
      assert.strictEqual(error._tag, "ToolNotFound")
      if (error._tag === "ToolNotFound") {
        assert.strictEqual(error.toolId, "echo.message.shout")
        assert.isUndefined(error.hint, "no tool is near enough to guess")
      }
      const typo = yield* Effect.flip((yield* Executor).call("echo.mesage.reflect", { message: "x" }, callContext(principal)))
      assert.deepInclude(typo, { _tag: "ToolNotFound", toolId: "echo.mesage.reflect", hint: "Did you mean echo.message.reflect?" })
    }))

  it.effect("a paid tool from a free workspace is Forbidden plan_required; a paid workspace runs it", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const free = yield* issuePrincipal("free")
      const error = yield* Effect.flip(executor.call("premium_report", {}, callContext(free.principal)))
      assert.strictEqual(error._tag, "Forbidden")
      if (error._tag === "Forbidden") assert.strictEqual(error.reason, "plan_required")
      const paid = yield* issuePrincipal("paid")
      assert.deepStrictEqual((yield* executor.call("premium_report", {}, callContext(paid.principal))).data, { ok: true })
    }))

  it.effect("a connector tool checks the connection: missing, foreign, unknown, wrong connector, right one", () =>
    Effect.gen(function* () {
      yield* createScratchTables
      const executor = yield* Executor
      const mine = yield* issuePrincipal("paid")
      const theirs = yield* issuePrincipal("paid")
      const reasonOf = (connectionId?: ConnectionId) =>
        executor.call("probe.items.consultar", {}, callContext(mine.principal, connectionId === undefined ? {} : { connectionId })).pipe(
          Effect.flip,
          Effect.map((e) => (e._tag === "Forbidden" ? e.reason : e._tag))
        )
      assert.strictEqual(yield* reasonOf(), "connection_required")
      assert.strictEqual(yield* reasonOf(yield* insertConnection(theirs.principal.workspaceId, "probe")), "connection_not_in_workspace")
      assert.strictEqual(yield* reasonOf(ConnectionId.make("conn_doesnotexist")), "connection_not_in_workspace")
      assert.strictEqual(yield* reasonOf(yield* insertConnection(mine.principal.workspaceId, "sii")), "connection_wrong_connector")

      const connectionId = yield* insertConnection(mine.principal.workspaceId, "probe")
      const requestId = newRequestId()
      const response = yield* executor.call("probe.items.consultar", {}, { ...callContext(mine.principal, { connectionId }), requestId })
      assert.deepStrictEqual(response.data, { labels: [] })
      assert.strictEqual((yield* auditRows(requestId))[0]?.connectionId, connectionId)
    }))

  it.effect("the answer is { data, meta } with the request id, tool, plane, latency and audit status", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const response = yield* executor.call("echo.message.reflect", { message: "hola" }, callContext(principal, { surface: "http" }))
      assert.deepStrictEqual(Object.keys(response).sort(), ["data", "meta"])
      assert.deepStrictEqual(response.data, { message: "hola" })
      assert.deepStrictEqual(Object.keys(response.meta).sort(), ["audit_status", "latency_ms", "plane", "receipt", "request_id", "tool_id"])
      assert.match(response.meta.request_id, /^req_[A-Za-z0-9]+$/)
      assert.strictEqual(response.meta.tool_id, "echo.message.reflect")
      assert.strictEqual(response.meta.plane, "action")
      assert.isAtLeast(response.meta.latency_ms, 0)
      assert.strictEqual(response.meta.audit_status, "recorded")

      const given = newRequestId()
      const again = yield* executor.call("echo.message.reflect", { message: "hola" }, { ...callContext(principal), requestId: given })
      assert.strictEqual(again.meta.request_id, given)
    }))

  it.effect("what a handler annotates appears next to the data, and nowhere else", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const response = yield* executor.call("annotated_answer", {}, callContext(principal))
      assert.deepStrictEqual(response.data, { total: 3 })
      assert.deepStrictEqual(response.warnings, ["the period is not synced"])
      assert.strictEqual(response.hint, "sync first")
      assert.deepStrictEqual(response.next_actions, [{ tool: "probe.conexion.sincronizar", reason: "fill the cache" }])
      const plain = yield* executor.call("echo.message.reflect", { message: "x" }, callContext(principal))
      assert.deepStrictEqual(Object.keys(plain).sort(), ["data", "meta"])
    }))

  it.effect("the audit row carries the time of the call, read from the Clock", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { principal } = yield* issuePrincipal("free")
      const requestId = newRequestId()
      yield* TestClock.setTime(SUITE_NOW)
      yield* (yield* Executor).call("echo.message.reflect", { message: "now" }, { ...callContext(principal), requestId })
      const [row] = yield* sql<{ at: Date }>`SELECT at FROM audit_log WHERE request_id = ${requestId}`
      assert.strictEqual(row?.at.toISOString(), new Date(SUITE_NOW).toISOString())
    }))

  it.effect("every call leaves one audit row with digests, never the payloads", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const secret = `secret-payload-${randomBytes(6).toString("hex")}`

      const ok = newRequestId()
      yield* executor.call("echo.message.reflect", { message: secret }, { ...callContext(principal, { surface: "mcp" }), requestId: ok })
      const [okRow, ...moreOk] = yield* auditRows(ok)
      assert.deepStrictEqual(moreOk, [])
      assert.strictEqual(okRow?.outcome, "ok")
      assert.strictEqual(okRow?.errorTag, null)
      assert.strictEqual(okRow?.surface, "mcp")
      assert.strictEqual(okRow?.workspaceId, principal.workspaceId)
      assert.strictEqual(okRow?.inputDigest, sha256(JSON.stringify({ message: secret })))
      assert.strictEqual(okRow?.outputDigest, sha256(JSON.stringify({ message: secret })))
      assert.notInclude(okRow?.whole, secret)

      const failures = [
        { toolId: "echo.message.reflect", input: { message: secret, extra: secret }, tag: "InvalidInput" },
        { toolId: "premium_report", input: { note: secret }, tag: "InvalidInput" },
        { toolId: "premium_report", input: {}, tag: "Forbidden" },
        { toolId: "no_such_tool", input: { message: secret }, tag: "ToolNotFound" }
      ]
      for (const failure of failures) {
        const requestId = newRequestId()
        const error = yield* Effect.flip(executor.call(failure.toolId, failure.input, { ...callContext(principal), requestId }))
        assert.strictEqual(error._tag, failure.tag)
        const rows = yield* auditRows(requestId)
        assert.strictEqual(rows.length, 1, `one audit row for the failed ${failure.toolId} call`)
        assert.strictEqual(rows[0]?.outcome, "error")
        assert.strictEqual(rows[0]?.errorTag, failure.tag)
        assert.strictEqual(rows[0]?.toolId, failure.toolId)
        assert.strictEqual(rows[0]?.outputDigest, null)
        assert.match(rows[0]?.inputDigest ?? "", /^[0-9a-f]{64}$/)
        assert.notInclude(rows[0]?.whole, secret)
      }
    }))
})
