import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Array as Arr, Effect, Option, Redacted, Schema } from "effect"
import { ReflectOutput, TimestampNowOutput } from "../../../schema/connectors/Core.ts"
import type { ToolDocument } from "../../../schema/tools/Definition.ts"
import { apiClient, HttpTest, issueKey } from "./TestServer.ts"

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** The instant as the zone's wall clock plus its offset, computed without the tool's code. */
const expectedIso = (epochMs: number, timeZone: string) => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit"
  }).formatToParts(epochMs)
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value)
  const wall = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second"))
  const offsetMinutes = Math.round((wall - (epochMs - (epochMs % 1000))) / 60_000)
  const abs = Math.abs(offsetMinutes)
  const offset = offsetMinutes === 0 ? "Z" : `${offsetMinutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  const local = `${part("year")}-${pad(part("month"))}-${pad(part("day"))}T${pad(part("hour"))}:${pad(part("minute"))}:${
    pad(part("second"))
  }`
  return `${local}.${pad(epochMs % 1000, 3)}${offset}`
}

const findTool = (tools: ReadonlyArray<ToolDocument>, id: string) =>
  Arr.findFirst(tools, (t) => t.id === id).pipe(Effect.orElseFail(() => `tool ${id} is not listed`))

const acme = Effect.map(issueKey("acme", "free"), Option.some)

const auditRowOf = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ toolId: string; surface: string; outcome: string; errorTag: string | null }>`
      SELECT tool_id, surface, outcome, error_tag FROM audit_log WHERE request_id = ${requestId}`
  )

layer(HttpTest, { excludeTestServices: true })("HTTP tools", (it) => {
  it.effect("lists the core tools with plane, plan, hints, cost, level, stages, scope and schemas", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(Option.none())
      const { tools } = yield* client.tools.list()
      const pure = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
      for (const id of ["core.timestamp.now", "echo.message.reflect"]) {
        const tool = yield* findTool(tools, id)
        assert.deepStrictEqual(
          {
            plane: tool.plane,
            plan: tool.plan,
            hints: tool.hints,
            cost: tool.cost,
            level: tool.level,
            stages: tool.stages,
            scope: tool.scope
          },
          { plane: "action", plan: "free", hints: pure, cost: { kind: "free" }, level: 0, stages: [], scope: null }
        )
        assert.strictEqual(tool.inputSchema["type"], "object")
        assert.strictEqual(tool.outputSchema["type"], "object")
      }
      const now = yield* findTool(tools, "core.timestamp.now")
      assert.hasAllKeys(now.inputSchema["properties"], ["timezone"])
      assert.hasAllKeys(now.outputSchema["properties"], ["iso", "epochMs", "timezone"])
      const reflect = yield* findTool(tools, "echo.message.reflect")
      assert.deepStrictEqual(reflect.inputSchema["required"], ["message"])
    }))

  it.effect("GET /api/v1/tools/{id} is the listed definition; an unknown id is ToolNotFound", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(Option.none())
      const { tools } = yield* client.tools.list()
      const one = yield* client.tools.get({ path: { id: "echo.message.reflect" } })
      assert.deepStrictEqual(one, yield* findTool(tools, "echo.message.reflect"))
      assert.strictEqual(one.policy, "pure")
      const missing = yield* Effect.flip(client.tools.get({ path: { id: "nope.nothing.here" } }))
      assert.strictEqual(missing._tag, "ToolNotFound")
      assert.include(missing.message, "nope.nothing.here")
      assert.notProperty(missing, "hint")
      const typo = yield* Effect.flip(client.tools.get({ path: { id: "echo.message.reflct" } }))
      assert.deepInclude(typo, { _tag: "ToolNotFound", hint: "Did you mean echo.message.reflect?" })
      // an id not of the shape of one (refused before the executor) is read the same way
      const shouted = yield* Effect.flip(
        (yield* apiClient(yield* acme)).tools.execute({
          path: { id: "Echo.Message.Reflect" },
          payload: { input: { message: "x" } },
          headers: {}
        })
      )
      assert.deepInclude(shouted, { _tag: "ToolNotFound", toolId: "Echo.Message.Reflect", hint: "Did you mean echo.message.reflect?" })
    }))

  it.effect("core.timestamp.now honours the time zone and answers {data, meta} after the audit row is recorded", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(yield* acme)
      const zones = ["America/Santiago", "Asia/Kolkata", "America/St_Johns", "Asia/Kathmandu", "UTC"]
      for (const timezone of zones) {
        const before = Date.now()
        const response = yield* client.tools.execute({ path: { id: "core.timestamp.now" }, payload: { input: { timezone } }, headers: {} })
        const data = yield* Schema.decodeUnknown(TimestampNowOutput)(response.data)
        assert.strictEqual(data.timezone, timezone)
        assert.isAtLeast(data.epochMs, before)
        assert.isAtMost(data.epochMs, Date.now())
        assert.strictEqual(data.iso, expectedIso(data.epochMs, timezone), timezone)
        assert.strictEqual(Date.parse(data.iso), data.epochMs, timezone)
        assert.strictEqual(response.meta.audit_status, "recorded")
      }
      const plain = yield* client.tools.execute({ path: { id: "core.timestamp.now" }, payload: { input: {} }, headers: {} })
      const data = yield* Schema.decodeUnknown(TimestampNowOutput)(plain.data)
      assert.strictEqual(data.timezone, "UTC")
      assert.isTrue(data.iso.endsWith("Z"))
      assert.strictEqual(Date.parse(data.iso), data.epochMs)
    }))

  it.effect("echo.message.reflect returns the message and its meta names a recorded audit row", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(yield* acme)
      const message = "hola ñandú 🦙 \"quoted\"\nline two"
      const response = yield* client.tools.execute({ path: { id: "echo.message.reflect" }, payload: { input: { message } }, headers: {} })
      assert.deepStrictEqual(yield* Schema.decodeUnknown(ReflectOutput)(response.data), { message })
      assert.hasAllKeys(response, ["data", "meta"])
      const { latency_ms, receipt, ...meta } = response.meta
      assert.match(meta.request_id, /^req_[A-Za-z0-9]+$/)
      assert.deepStrictEqual({ ...meta, request_id: "" }, {
        request_id: "",
        tool_id: "echo.message.reflect",
        plane: "action",
        audit_status: "recorded"
      })
      assert.match(receipt?.digest ?? "", /^[0-9a-f]{64}$/)
      assert.isAtLeast(latency_ms, 0)
      assert.deepStrictEqual(yield* auditRowOf(meta.request_id), [
        { toolId: "echo.message.reflect", surface: "http", outcome: "ok", errorTag: null }
      ])
    }))

  it.effect("a workspace's calls past the ninth are still recorded, in one gapless chain", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(Option.some(yield* issueKey("busy", "free")))
      const responses = yield* Effect.forEach(
        Arr.range(1, 25),
        (i) => client.tools.execute({ path: { id: "echo.message.reflect" }, payload: { input: { message: `call ${i}` } }, headers: {} }),
        { concurrency: 5 }
      )
      assert.deepStrictEqual(new Set(responses.map((r) => r.meta.audit_status)), new Set(["recorded"]))
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ seq: number }>`
        SELECT a.seq::int AS seq FROM audit_log a JOIN workspaces w ON w.id = a.workspace_id
        WHERE w.name = 'busy' ORDER BY a.seq`
      assert.deepStrictEqual(rows.map((r) => r.seq), Arr.range(1, 25))
    }))

  it.effect("no key and a bad key are Unauthorized", () =>
    Effect.gen(function* () {
      const call = (key: Option.Option<Redacted.Redacted<string>>) =>
        apiClient(key).pipe(
          Effect.flatMap((client) =>
            client.tools.execute({ path: { id: "echo.message.reflect" }, payload: { input: { message: "hi" } }, headers: {} })
          ),
          Effect.flip
        )
      for (const key of [Option.none(), Option.some(Redacted.make("brein_sk_notarealkey")), Option.some(Redacted.make("garbage"))]) {
        const error = yield* call(key)
        assert.strictEqual(error._tag, "Unauthorized")
      }
    }))

  it.effect("bad input is InvalidInput naming each bad field", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(yield* acme)
      const execute = (id: string, input: unknown) => Effect.flip(client.tools.execute({ path: { id }, payload: { input }, headers: {} }))
      const missing = yield* execute("echo.message.reflect", {})
      assert.strictEqual(missing._tag, "InvalidInput")
      if (missing._tag !== "InvalidInput") return
      assert.deepStrictEqual(missing.issues.map((i) => i.path), ["input.message"])
      assert.include(missing.message, "input.message")
      const several = yield* execute("echo.message.reflect", { message: 7, extra: true })
      assert.strictEqual(several._tag, "InvalidInput")
      if (several._tag !== "InvalidInput") return
      assert.sameMembers(several.issues.map((i) => i.path), ["input.message", "input.extra"])
      const zone = yield* execute("core.timestamp.now", { timezone: "Mars/Olympus" })
      assert.strictEqual(zone._tag, "InvalidInput")
      if (zone._tag !== "InvalidInput") return
      assert.deepStrictEqual(zone.issues.map((i) => i.path), ["input.timezone"])
    }))

  it.effect("executing an unknown tool is ToolNotFound and is audited as an error", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(yield* acme)
      const error = yield* Effect.flip(client.tools.execute({ path: { id: "nope.nothing.here" }, payload: { input: {} }, headers: {} }))
      assert.strictEqual(error._tag, "ToolNotFound")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ errorTag: string }>`SELECT error_tag FROM audit_log WHERE tool_id = 'nope.nothing.here'`
      assert.deepStrictEqual(rows, [{ errorTag: "ToolNotFound" }])
    }))

  it.effect("a malformed X-Connect-Connection header is InvalidInput naming the header for a connector tool, as on /mcp", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(yield* acme)
      const error = yield* Effect.flip(client.tools.execute({
        path: { id: "sii.rcv.consultar" },
        payload: { input: {} },
        headers: { "x-connect-connection": "not-a-connection" }
      }))
      assert.strictEqual(error._tag, "InvalidInput")
      assert.strictEqual(error.message, "X-Connect-Connection must be a connection id like conn_…")
    }))

  it.effect("a malformed X-Connect-Connection header does not hide an unknown tool, and a tool without a connection ignores it", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(yield* acme)
      const headers = { "x-connect-connection": "not-a-connection" }
      for (const id of ["nope.nothing.here", "board_read"]) {
        const error = yield* Effect.flip(client.tools.execute({ path: { id }, payload: { input: {} }, headers }))
        assert.strictEqual(error._tag, "ToolNotFound", id)
      }
      const echoed = yield* client.tools.execute({ path: { id: "echo.message.reflect" }, payload: { input: { message: "hi" } }, headers })
      assert.deepStrictEqual(yield* Schema.decodeUnknown(ReflectOutput)(echoed.data), { message: "hi" })
    }))
})
