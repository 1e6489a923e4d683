import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Redacted, Schedule } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { allFinished, jobsOf, rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { terminateBackends } from "../../support/Faults.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import { RecordedLogs, RecordLogs } from "../../support/TestLogging.ts"
import { raw, type RawAnswer } from "../mcp/RawHttp.ts"

const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const PERIODOS = ["2026-06", "2026-07", "2026-08", "2026-09", "2026-10"]

/** What a client was told: 200 ok, a typed 503 with Retry-After, or anything else (the defect this test hunts). */
const verdict = (answer: RawAnswer, surface: "rest" | "mcp") => {
  if (surface === "mcp" && answer.status === 200) {
    if (/\\"_tag\\":\\"(ServiceUnavailable|AuditUnavailable)\\"/.test(answer.text)) return "503"
    return answer.text.includes("\"isError\":true") || answer.text.includes("\"error\"") ? `bad: ${answer.text.slice(0, 300)}` : "ok"
  }
  if (answer.status === 200) return "ok"
  if (
    answer.status === 503 && answer.headers["retry-after"] !== undefined &&
    /"_tag":"(ServiceUnavailable|AuditUnavailable)"/.test(answer.text)
  ) return "503"
  return `bad: ${answer.status} ${JSON.stringify(answer.headers["retry-after"])} ${answer.text.slice(0, 300)}`
}

describe("a database outage", () => {
  it.scopedLive(
    "REST and MCP answer a typed 503 with Retry-After (never an empty 500), and a running sync still completes",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        // A claim whose answer is lost with its connection is taken over later and spends an attempt: allow for those.
        const app = yield* Layer.build(
          serveOn(listen(0)).pipe(
            Layer.provideMerge(simulatedServices({ BREIN_SYNC_CONCURRENCY: "2", BREIN_SYNC_MAX_ATTEMPTS: "10" }, 0.01)),
            Layer.provideMerge(databaseFromUrl(url)),
            Layer.provideMerge(RecordLogs)
          )
        )
        const admin = yield* PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        const { key, principal } = yield* issuePrincipal("paid").pipe(Effect.provide(app))
        const connection = yield* siiConnection(principal, rut(76600001)).pipe(Effect.provide(app))
        const auth = { ...json, authorization: `Bearer ${Redacted.value(key)}`, "x-connect-connection": connection.id }
        const consultar = { input: { periodo: "2026-06", perspectiva: "ventas" } }
        const rest = (path: string, body: unknown) =>
          raw({ method: "POST", path, headers: auth, body: JSON.stringify(body) }).pipe(Effect.map((a) => verdict(a, "rest")))
        const mcp = raw({
          method: "POST",
          path: "/mcp",
          headers: auth,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "sii.rcv.consultar", arguments: consultar.input }
          })
        }).pipe(Effect.map((a) => verdict(a, "mcp")))
        for (const periodo of PERIODOS) {
          assert.strictEqual(
            yield* rest("/api/v1/tools/sii.conexion.sincronizar/execute", { input: { periodo, esperar: 0 } }).pipe(Effect.provide(app)),
            "ok"
          )
        }
        // Requests keep coming while every backend of the database is terminated, again and again.
        const traffic = yield* Effect.all([rest("/api/v1/tools/sii.rcv.consultar/execute", consultar), mcp], { concurrency: 2 }).pipe(
          Effect.repeat(Schedule.recurs(40)),
          Effect.zipRight(Effect.void),
          Effect.provide(app),
          Effect.fork
        )
        const answers: Array<string> = []
        const collect = Effect.all([rest("/api/v1/tools/sii.rcv.consultar/execute", consultar), mcp]).pipe(
          Effect.tap((pair) => Effect.sync(() => answers.push(...pair))),
          Effect.provide(app)
        )
        let kills = 0
        for (let round = 0; round < 15; round++) {
          yield* terminateBackends(admin)
          kills++
          yield* Effect.fork(collect)
          yield* collect
        }
        yield* Fiber.join(traffic)
        assert.isAbove(kills, 0)
        assert.deepStrictEqual(answers.filter((a) => a !== "ok" && a !== "503"), [], "every answer is 200 or a typed 503 with Retry-After")
        assert.include(answers, "503", "the outage was felt: some requests were answered 503")
        const logs = yield* Context.get(app, RecordedLogs).lines
        assert.isAbove(logs.filter((l) => l.includes("database unavailable")).length, 0, "each 503 is logged")
        // The probe's own read may still meet the outage's aftermath (a cancel sent for a statement
        // that an interrupted fiber left can reach the next statement on that connection, and a cancel
        // waits for a pooled connection of its own, so it can land seconds later): read again. The
        // service dies on a failed read (its callers answer 503), so the probe retries that defect.
        const probe = jobsOf(connection.id).pipe(
          Effect.catchAllDefect((defect) => Effect.fail(defect)),
          Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.intersect(Schedule.recurs(100)))),
          Effect.provide(app)
        )
        const jobs = yield* waitUntil(probe, allFinished, {
          what: "the sync jobs ending",
          tries: 2400
        })
        assert.deepStrictEqual(
          jobs.map((j) => [j.state, Option.getOrNull(Option.fromNullable(j.errorReason))]),
          jobs.map(() => ["sincronizada", null]),
          "the sync jobs completed: a transient database failure is retried, never an error_interno"
        )
      }),
    180_000
  )
})
