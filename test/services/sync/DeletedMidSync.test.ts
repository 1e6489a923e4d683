import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Fiber, Layer, Option } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { Account } from "../../../services/budget/Account.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { allFinished, execute, jobsOf, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { childNames, finishedSpans, spansNamed, SpansTest, treeOf } from "../../support/Spans.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import { RecordedLogs, RecordLogs } from "../../support/TestLogging.ts"

describe("a sync's heartbeat", () => {
  it.scopedLive(
    "renews the lease of a running sync in one statement per beat, which also says whether its jobs were deleted",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        // a login of seconds and a lease of 2 s: the heartbeat (every third of the lease) renews several times
        const app = yield* Layer.build(
          simulatedServices({}, 0.2).pipe(Layer.provideMerge(databaseFromUrl(url)), Layer.provideMerge(SpansTest))
        )
        yield* Effect.gen(function* () {
          const { principal } = yield* issuePrincipal("paid")
          const connection = yield* siiConnection(principal, rut(76500033))
          const periodo = yield* monthsAgo(1)
          yield* execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas", esperar: 0 }, connection.id)
          yield* waitForJobs(connection.id, allFinished, "40 seconds")
          const spans = yield* finishedSpans
          const beats = spansNamed(spans, "SyncJobs.renew")
          assert.isAtLeast(beats.length, 2, "the lease was renewed while the sync ran")
          // a beat after the job finished (while its session ends) renews none, and is still one statement
          for (const beat of beats) assert.deepStrictEqual(childNames(treeOf(spans, beat)), ["sql.execute"])
          assert.deepStrictEqual((yield* jobsOf(connection.id)).map((job) => job.state), ["sincronizada"])
        }).pipe(Effect.provide(app))
      }),
    60_000
  )
})

describe("a connection deleted while its sync runs", () => {
  it.scopedLive(
    "stops the sync's upstream session, quietly: no job dies, nothing is said of replaced credentials",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        // a login that takes seconds (the SII's at a fifth of its pace): the deletion comes while it runs
        const app = yield* Layer.build(
          simulatedServices({}, 0.2).pipe(Layer.provideMerge(databaseFromUrl(url)), Layer.provideMerge(RecordLogs))
        )
        const logs = Context.get(app, RecordedLogs).lines
        yield* Effect.gen(function* () {
          const { principal } = yield* issuePrincipal("paid")
          const connection = yield* siiConnection(principal, rut(76500031))
          const periodo = yield* monthsAgo(1)
          yield* execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas", esperar: 0 }, connection.id)
          yield* waitForJobs(connection.id, (jobs) => jobs[0]?.state === "sincronizando")
          yield* Effect.flatMap(Connections, (c) => c.remove(principal, connection.id))
          assert.deepStrictEqual(yield* jobsOf(connection.id), [], "the jobs went with their connection")
          yield* waitUntil(logs, (lines) => lines.some((l) => l.includes("its upstream session stopped")), {
            what: "the sync's session stopping",
            tries: 200
          })
        }).pipe(Effect.provide(app))
        const said = (yield* logs).join("\n")
        assert.notInclude(said, "sync job died")
        assert.notInclude(said, "sync batch died")
        assert.notInclude(said, "credentials were replaced")
      }),
    60_000
  )

  it.scopedLive(
    "answers a sync that waited on it RecordNotFound connection, saying it was deleted, not that it is another workspace's",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const app = yield* Layer.build(simulatedServices({}, 0.2).pipe(Layer.provideMerge(databaseFromUrl(url))))
        yield* Effect.gen(function* () {
          const { principal } = yield* issuePrincipal("paid")
          const connection = yield* siiConnection(principal, rut(76500032))
          const periodo = yield* monthsAgo(1)
          const waited = yield* Effect.fork(
            execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas", esperar: 30 }, connection.id)
          )
          yield* waitForJobs(connection.id, (jobs) => jobs[0]?.state === "sincronizando")
          yield* Effect.flatMap(Connections, (c) => c.remove(principal, connection.id))
          const exit = yield* Fiber.await(waited)
          const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
          if (Option.isNone(failure)) {
            return assert.fail(`the waited sync answered ${Exit.isSuccess(exit) ? JSON.stringify(exit.value.warnings ?? []) : "a defect"}`)
          }
          const error = failure.value
          assert.strictEqual(error._tag, "RecordNotFound", error.message)
          if (error._tag === "RecordNotFound") {
            assert.deepStrictEqual([error.kind, error.ids], ["connection", [connection.id]])
            assert.include(error.message, "deleted")
            assert.include(error.hint ?? "", "POST /api/v1/connections")
          }
          assert.notInclude(error.message, "does not belong to this workspace")
          // the row written at the commit stays (its jobs did commit); a second row of the same call records its answer
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<
            { requestId: string; outcome: string; errorTag: string | null; connectionId: string | null; digest: string }
          >`
            SELECT request_id, outcome, error_tag, connection_id, digest FROM audit_log
            WHERE chain = ${principal.workspaceId} AND tool_id = 'sii.conexion.sincronizar' ORDER BY seq`
          assert.deepStrictEqual(rows.map((row) => [row.outcome, row.errorTag, row.connectionId]), [
            ["ok", null, connection.id],
            ["error", "RecordNotFound", connection.id]
          ])
          assert.strictEqual(rows[1]?.requestId, rows[0]?.requestId, "both rows are the one call's")
          const audit = yield* AuditVerify
          assert.isTrue((yield* audit.verify()).ok, "the chain still verifies")
          for (const row of rows) {
            const receipt = yield* audit.receipt(row.requestId, row.digest)
            assert.strictEqual(receipt.status, "recorded", `${row.outcome}: each row's receipt holds`)
          }
        }).pipe(Effect.provide(app))
      }),
    60_000
  )

  it.scopedLive(
    "gives back the read of the hour of a sync that waited on it and answered 404; a caller that hung up keeps its read spent",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const app = yield* Layer.build(simulatedServices({}, 0.2).pipe(Layer.provideMerge(databaseFromUrl(url))))
        yield* Effect.gen(function* () {
          const { principal } = yield* issuePrincipal("paid")
          const connection = yield* siiConnection(principal, rut(76500034))
          const periodo = yield* monthsAgo(1)
          const sync = execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas", esperar: 30 }, connection.id)
          const readsUsed = Effect.flatMap(Account, (account) => account.usage(principal, 0)).pipe(Effect.map((usage) => usage.reads.used))
          const sql = yield* SqlClient.SqlClient
          const committedSyncs = sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log
            WHERE chain = ${principal.workspaceId} AND tool_id = 'sii.conexion.sincronizar' AND outcome = 'ok'`.pipe(
            Effect.map((rows) => rows[0]?.n ?? 0)
          )

          const hungUp = yield* Effect.fork(sync)
          yield* waitForJobs(connection.id, (jobs) => jobs[0]?.state === "sincronizando")
          yield* Fiber.interrupt(hungUp)
          assert.strictEqual(yield* readsUsed, 1, "a caller that hung up while it waited spent its read: its sync runs on")

          const waited = yield* Effect.fork(sync)
          yield* waitUntil(committedSyncs, (n) => n === 2, { what: "the second sync's commit" })
          assert.strictEqual(yield* readsUsed, 2)
          yield* Effect.flatMap(Connections, (c) => c.remove(principal, connection.id))
          const exit = yield* Fiber.await(waited)
          const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
          assert.strictEqual(Option.getOrUndefined(failure)?._tag, "RecordNotFound", "the waited sync answered 404")
          assert.strictEqual(yield* readsUsed, 1, "the call answered 404 gave its read back, once")
        }).pipe(Effect.provide(app))
      }),
    60_000
  )
})
