import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { stallingProxy } from "../../../src/bench/StallingProxy.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { terminateBackends } from "../../support/Faults.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import { RecordedLogs, RecordLogs } from "../../support/TestLogging.ts"
import { raw, type RawAnswer } from "../mcp/RawHttp.ts"

const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }

/** What a client was told, in a word: ok (200), 503 (typed, with Retry-After), or what else came. */
const verdict = (answer: RawAnswer) => {
  if (answer.status === 200) return "ok"
  if (answer.status === 503 && answer.headers["retry-after"] !== undefined && answer.text.includes("\"ServiceUnavailable\"")) return "503"
  return `${answer.status} ${answer.text.slice(0, 300)}`
}

/** An MCP answer in a word: ok, 503 (a tool error naming ServiceUnavailable), or what else came. */
const mcpVerdict = (answer: RawAnswer) => {
  if (answer.status !== 200) return `${answer.status} ${answer.text.slice(0, 300)}`
  if (answer.text.includes("\"isError\":true")) return /ServiceUnavailable/.test(answer.text) ? "503" : answer.text.slice(0, 300)
  return answer.text.includes("\"result\"") ? "ok" : answer.text.slice(0, 300)
}

/** The service on a fresh database reached through a proxy, with a 1 s bound; its three kinds of call, answered in a word. */
const stallable = Effect.gen(function* () {
  const url = yield* freshDatabase
  const proxy = yield* stallingProxy(Redacted.value(url))
  const bounded = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["BREIN_DB_CONNECT_TIMEOUT_SECONDS", "1"]])))
  const app = yield* Layer.build(
    serveOn(listen(0)).pipe(
      Layer.provideMerge(simulatedServices()),
      Layer.provideMerge(databaseFromUrl(Redacted.make(proxy.url)).pipe(Layer.provide(bounded))),
      Layer.provideMerge(RecordLogs)
    )
  )
  const admin = yield* PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
  const { key, principal } = yield* issuePrincipal("paid").pipe(Effect.provide(app))
  const connection = yield* siiConnection(principal, rut(76600011)).pipe(Effect.provide(app))
  const auth = { ...json, authorization: `Bearer ${Redacted.value(key)}`, "x-connect-connection": connection.id }
  const input = { periodo: "2026-06", perspectiva: "ventas" }
  const rest = raw({
    method: "POST",
    path: "/api/v1/tools/sii.rcv.consultar/execute",
    headers: auth,
    body: JSON.stringify({ input })
  }).pipe(Effect.map(verdict), Effect.provide(app))
  const mcp = raw({
    method: "POST",
    path: "/mcp",
    headers: auth,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "sii.rcv.consultar", arguments: input } })
  }).pipe(Effect.map(mcpVerdict), Effect.provide(app))
  const pure = raw({ method: "POST", path: "/api/v1/tools/core.timestamp.now/execute", headers: auth, body: "{\"input\":{}}" })
    .pipe(Effect.provide(app))
  assert.deepStrictEqual([yield* rest, yield* mcp], ["ok", "ok"])
  return { app, admin, proxy, rest, mcp, pure }
})

type Stallable = Effect.Effect.Success<typeof stallable>

/** While stalled: reads answer 503 and a pure call answers, saying its audit row was not written. */
const answeredWhileStalled = ({ mcp, pure, rest }: Stallable) =>
  Effect.gen(function* () {
    assert.deepStrictEqual(yield* Effect.all([rest, mcp, rest], { concurrency: 3 }), ["503", "503", "503"])
    const stalledPure = yield* pure
    assert.strictEqual(stalledPure.status, 200, stalledPure.text)
    assert.include(stalledPure.text, "\"audit_status\":\"failed\"", "a pure call answers, and says its audit row was not written")
  })

/** After: served again, the audit chain intact, and the outage told as one (warnings; an error only for a lost audit row). */
const servedAgain = ({ app, mcp, proxy, rest }: Stallable) =>
  Effect.gen(function* () {
    yield* proxy.forward
    yield* waitUntil(Effect.all([rest, mcp]), (answers) => answers.every((a) => a === "ok"), { what: "calls served again" })
    const report = yield* Effect.flatMap(AuditVerify, (audit) => audit.verify()).pipe(Effect.provide(app))
    assert.isTrue(report.ok, JSON.stringify(report))
    const logs = yield* Context.get(app, RecordedLogs).lines
    assert.isAbove(logs.filter((l) => l.includes("database unavailable") && l.includes("cause=")).length, 0)
    assert.deepStrictEqual(
      logs.filter((l) => l.includes("level=ERROR") && !l.includes("message=\"audit append failed\"")),
      [],
      "nothing but a lost audit row is logged as an error"
    )
    return logs
  })

describe("a database that stops answering", () => {
  it.scopedLive(
    "calls fail with a typed 503 within the bound on waiting for a connection, rather than wait without end; then serve again",
    () =>
      Effect.gen(function* () {
        const service = yield* stallable
        // New connections are accepted and never answered; the ones brein holds are lost.
        yield* service.proxy.stall
        yield* terminateBackends(service.admin)
        yield* answeredWhileStalled(service)
        assert.isAtLeast(yield* service.proxy.stalled, 1, "brein's connections were made and left unanswered")
        yield* servedAgain(service)
      }),
    120_000
  )

  it.scopedLive(
    "calls on connections the database holds without answering (its process stopped, the path cut) fail with a typed 503, then serve again",
    () =>
      Effect.gen(function* () {
        const service = yield* stallable
        // No connection is lost: every byte each way is held, and new connections are never answered.
        yield* service.proxy.freeze
        yield* answeredWhileStalled(service)
        const logs = yield* servedAgain(service)
        assert.isAbove(logs.filter((l) => l.includes("the database answers no new connection")).length, 0)
      }),
    120_000
  )
})
