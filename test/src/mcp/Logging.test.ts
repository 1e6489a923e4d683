import { assert, describe, it, layer } from "@effect/vitest"
import type { Client, LoggingLevel, LoggingMessageNotificationParams } from "@modelcontextprotocol/client"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import type { ConnectionId } from "../../../schema/Ids.ts"
import { ToolResponse } from "../../../schema/tools/Response.ts"
import type { JobRow } from "../../../services/sync/SyncJobs.ts"
import { currentPeriodo } from "../../../services/upstream/CivilDate.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { changes } from "../../../src/mcp/SyncLog.ts"
import { rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { bearer, callTool, connect, ERAS, errorOf, listTools } from "./McpTestServer.ts"
import { raw, rpcOf } from "./RawHttp.ts"

const job = (patch: Partial<JobRow>): JobRow => ({
  id: "job_1",
  connectionId: "conn_1" as ConnectionId,
  workspaceId: "ws_1" as JobRow["workspaceId"],
  connector: "sii",
  scopeKey: "periodo=2026-10&perspectiva=ventas",
  scope: { periodo: "2026-10", perspectiva: "ventas" },
  state: "en_cola",
  attempts: 0,
  maxAttempts: 3,
  progress: { done: 0, total: 0 },
  counts: {},
  errorReason: null,
  errorMessage: null,
  errorParts: null,
  createdAt: new Date(0),
  startedAt: null,
  finishedAt: null,
  ...patch
})

const after = (before: JobRow, now: JobRow) => changes(new Map([[before.id, before]]), [now])

describe("sync log lines", () => {
  it("says login, retries, re-login, and the end", () => {
    const queued = job({})
    const running = job({ state: "sincronizando", attempts: 1 })
    assert.deepStrictEqual(after(queued, running), [{
      level: "info",
      message: "sii periodo=2026-10 perspectiva=ventas: logging in to sii"
    }])
    const failedOnce = job({ state: "en_cola", attempts: 1, errorReason: "sesion_en_uso", errorMessage: "busy" })
    assert.deepStrictEqual(after(running, failedOnce), [{
      level: "warning",
      message: "sii periodo=2026-10 perspectiva=ventas: will retry after sesion_en_uso: busy"
    }])
    assert.deepInclude(after(failedOnce, job({ state: "sincronizando", attempts: 2 })), {
      level: "warning",
      message: "sii periodo=2026-10 perspectiva=ventas: retrying (attempt 2 of 3) after sesion_en_uso: busy"
    })
    const reading = job({ state: "sincronizando", attempts: 1, progress: { done: 1, total: 4, step: "cuenta 1" } })
    assert.deepStrictEqual(after(reading, job({ state: "sincronizando", attempts: 1, progress: { done: 1, total: 4, step: "login" } })), [
      { level: "notice", message: "sii periodo=2026-10 perspectiva=ventas: the session expired; logging in again" }
    ])
    assert.deepStrictEqual(after(reading, job({ state: "sincronizada", attempts: 1 })), [{
      level: "info",
      message: "sii periodo=2026-10 perspectiva=ventas: synced"
    }])
    assert.deepStrictEqual(after(running, job({ state: "error", errorReason: "credenciales_invalidas", errorMessage: "rejected" })), [
      { level: "error", message: "sii periodo=2026-10 perspectiva=ventas: failed (credenciales_invalidas: rejected)" }
    ])
    assert.deepStrictEqual(after(running, running), [])
  })
})

const LOG_LEVEL = "io.modelcontextprotocol/logLevel"

const syncCall = (client: Client, args: Record<string, unknown>, meta: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name: "sii.conexion.sincronizar", arguments: args, _meta: meta }))

const SyncingMcp = serveOn(listen(0)).pipe(Layer.provideMerge(simulatedServices()), Layer.provideMerge(TestDatabase))

const paidKey = (workspace: string) =>
  Effect.flatMap(Workspaces, (w) => w.issueKey({ workspace, plan: Option.some("paid") })).pipe(
    Effect.map((issued) => ({ key: Redacted.value(issued.key), workspace: issued.workspace }))
  )

layer(SyncingMcp, { excludeTestServices: true })("MCP logging", (it) => {
  it.scoped("declares logging; a sync sends what it does as log notifications, at or above the level the client set", () =>
    Effect.gen(function* () {
      const periodo = yield* currentPeriodo
      for (const [index, era] of ERAS.entries()) {
        const { key } = yield* paidKey(`logging-${era}`)
        const principal = yield* Effect.flatMap(Workspaces, (w) => w.principalFor(`logging-${era}`))
        const good = yield* siiConnection(principal, rut(76100001 + index * 10))
        const bad = yield* siiConnection(principal, rut(76100002 + index * 10), "invalida")

        const client = yield* connect(era, bearer(key))
        assert.isDefined(client.getServerCapabilities()?.logging, era)
        const lines: Array<LoggingMessageNotificationParams> = []
        client.setNotificationHandler("notifications/message", (notification) => void lines.push(notification.params))
        // 2025 clients set a level once (logging/setLevel); 2026 clients send it with each request
        const setLevel = (level: LoggingLevel) =>
          era === "legacy"
            ? Effect.promise(() => client.setLoggingLevel(level)).pipe(Effect.as({}))
            : Effect.succeed({ [LOG_LEVEL]: level })
        yield* listTools(client)

        const info = yield* setLevel("info")
        yield* syncCall(client, { periodo, perspectiva: "ventas", esperar: 20, connection: good.id }, info)
        assert.deepInclude(lines, { level: "info", logger: "brein", data: `sii periodo=${periodo} perspectiva=ventas: synced` }, era)

        lines.length = 0
        const error = yield* setLevel("error")
        const failed = yield* syncCall(client, { periodo, perspectiva: "ventas", esperar: 20, connection: bad.id }, error)
        assert.notStrictEqual(failed.isError, true)
        const answer = yield* Schema.decodeUnknown(ToolResponse)(failed.structuredContent)
        assert.include(answer.hint, `PATCH /api/v1/connections/${bad.id}`, "invalid credentials: the answer says how to update them")
        assert.isAbove(lines.length, 0, era)
        assert.isTrue(lines.every((l) => l.level === "error"), JSON.stringify(lines))
        assert.include(String(lines[0]?.data), "credenciales_invalidas")

        const none = yield* callTool(client, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas" })
        assert.deepInclude(yield* errorOf(none), { _tag: "Forbidden", reason: "connection_required" })
      }
    }))

  it.effect("logging/setLevel refuses a level it does not know as invalid params (-32602), naming the levels, without echoing it", () =>
    Effect.gen(function* () {
      const { key } = yield* paidKey("logging-bad-level")
      const setLevel = (params: unknown) =>
        raw({
          method: "POST",
          path: "/mcp",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${key}`,
            "mcp-protocol-version": "2025-06-18"
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "logging/setLevel", params })
        }).pipe(Effect.map(rpcOf))
      for (const level of ["loud", 3, "INFO", "x".repeat(10_000)]) {
        assert.deepStrictEqual((yield* setLevel({ level })).error, {
          code: -32602,
          message:
            "Invalid params for logging/setLevel: level: must be one of debug, info, notice, warning, error, critical, alert, emergency"
        }, String(level).slice(0, 20))
      }
      assert.deepStrictEqual((yield* setLevel({})).error, {
        code: -32602,
        message: "Invalid params for logging/setLevel: level: is missing"
      })
      const ok = yield* setLevel({ level: "warning" })
      assert.isUndefined(ok.error, "a level it knows is taken")
      assert.isDefined(ok.result)
    }))
})
