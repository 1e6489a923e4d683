import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import type { Context } from "effect"
import { Effect, Layer } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import type { VerifyReport } from "../../../schema/audit/AuditRow.ts"
import type { Principal } from "../../../schema/Principal.ts"
import { AuditStore } from "../../../services/audit/AuditStore.ts"
import { AuditStoreSql } from "../../../services/audit/AuditStoreSql.ts"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { link } from "../../../services/audit/Chain.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { auditKeyInTemp } from "../../support/TestAuditKey.ts"
import { freshDatabase, TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { createScratchTables, FixtureRegistry } from "../pipeline/Fixtures.ts"
import { entry, tamper, where } from "./Support.ts"

const Services = servicesWith(FixtureRegistry).pipe(Layer.provideMerge(TestDatabase))

/** Every fourth call writes (it holds a transaction until its audit row is in); the rest are pure. */
const callNumber = (principal: Principal, i: number) =>
  Effect.flatMap(Executor, (executor) =>
    i % 4 === 0
      ? executor.call("note_write", { text: `note ${i}` }, callContext(principal))
      : executor.call("echo.message.reflect", { message: `call ${i}` }, callContext(principal, { surface: i % 2 === 0 ? "http" : "mcp" })))

const summary = (report: VerifyReport) => ({ ok: report.ok, chains: report.chains, rows: report.rows, firstBreak: report.firstBreak })

const chainShape = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ chain: string; rows: number; first: number; last: number }>`
    SELECT chain, count(*)::int AS rows, min(seq)::int AS first, max(seq)::int AS last
    FROM audit_log GROUP BY chain ORDER BY chain`)

/** A workspace whose audit writer is born inside a caller's transaction, as in a program embedding brein. */
const workspace = Effect.gen(function* () {
  yield* createScratchTables
  const sql = yield* SqlClient.SqlClient
  const { principal } = yield* issuePrincipal("free")
  const first = yield* callNumber(principal, 1).pipe(sql.withTransaction)
  assert.strictEqual(first.meta.audit_status, "recorded")
  return principal
})

const callsIn = (principal: Principal, count: number) =>
  Effect.forEach(Array.from({ length: count - 1 }, (_, i) => i), (i) => callNumber(principal, i)).pipe(
    Effect.tap((responses) => assert.deepStrictEqual(responses.map((r) => r.meta.audit_status), responses.map(() => "recorded")))
  )

describe("audit chain", () => {
  it.effect("200 concurrent calls across two workspaces leave two intact, contiguous chains", () =>
    Effect.gen(function* () {
      const a = yield* workspace
      const b = yield* workspace
      const responses = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        (i) => callNumber(i % 2 === 0 ? a : b, Math.floor(i / 2)),
        { concurrency: 50 }
      )
      assert.deepStrictEqual(new Set(responses.map((r) => r.meta.audit_status)), new Set(["recorded"]))

      const report = yield* (yield* AuditVerify).verify()
      assert.deepStrictEqual(summary(report), { ok: true, chains: 2, rows: 202, firstBreak: null })
      const shape = yield* chainShape
      assert.deepStrictEqual(
        shape.map((c) => [c.chain, c.rows, c.first, c.last]),
        [a.workspaceId, b.workspaceId].sort().map((chain) => [chain, 101, 1, 101])
      )
    }).pipe(Effect.provide(Services)))

  it.effect("a tampered row is reported at its chain and seq as digest_mismatch", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const verify = (yield* AuditVerify).verify
      const principal = yield* workspace
      yield* callsIn(principal, 12)
      assert.isTrue((yield* verify()).ok)

      const chain = principal.workspaceId
      const [fifth] = yield* sql<{ requestId: string }>`SELECT request_id FROM audit_log WHERE chain = ${chain} AND seq = 5`
      yield* tamper(`UPDATE audit_log SET outcome = 'error' WHERE chain = '${chain}' AND seq = 5`)
      const flipped = yield* verify()
      assert.isFalse(flipped.ok)
      assert.deepStrictEqual(flipped.firstBreak, {
        chain,
        seq: 5,
        requestId: fifth?.requestId ?? "",
        reason: "digest_mismatch",
        detail: "the row's content does not match its digest"
      })
      assert.strictEqual(flipped.rows, 4)
      yield* tamper(`UPDATE audit_log SET outcome = 'ok' WHERE chain = '${chain}' AND seq = 5`)
      assert.isTrue((yield* verify()).ok)

      yield* tamper(`UPDATE audit_log SET latency_ms = latency_ms + 1 WHERE chain = '${chain}' AND seq = 9`)
      assert.deepStrictEqual(where(yield* verify()), [chain, 9, "digest_mismatch"])
    }).pipe(Effect.provide(Services)))

  it.effect("a deleted middle row is reported as a sequence_gap", () =>
    Effect.gen(function* () {
      const principal = yield* workspace
      yield* callsIn(principal, 10)
      const chain = principal.workspaceId
      yield* tamper(`DELETE FROM audit_log WHERE chain = '${chain}' AND seq = 4`)
      const report = yield* (yield* AuditVerify).verify()
      assert.isFalse(report.ok)
      assert.deepStrictEqual(where(report), [chain, 5, "sequence_gap"])
    }).pipe(Effect.provide(Services)))

  it.effect("verify walks every page: a break past the first 5000 rows is found", () =>
    Effect.gen(function* () {
      const store = yield* AuditStore
      const bulk = (workspaceId: string, i: number) =>
        entry(workspaceId, { requestId: `req_bulk${i}`, at: new Date(1_700_000_000_000 + i), latencyMs: i / 100 })
      for (const chain of ["ws_a", "ws_b"]) {
        for (let batch = 0; batch < 6; batch++) {
          yield* store.insert(link(yield* store.heads([chain]), Array.from({ length: 500 }, (_, i) => bulk(chain, batch * 500 + i))))
        }
      }
      const verify = (yield* AuditVerify).verify
      assert.deepStrictEqual(summary(yield* verify()), { ok: true, chains: 2, rows: 6000, firstBreak: null })
      yield* tamper(`UPDATE audit_log SET cost = 'read' WHERE chain = 'ws_b' AND seq = 2900`)
      const report = yield* verify()
      assert.deepStrictEqual(where(report), ["ws_b", 2900, "digest_mismatch"])
      assert.strictEqual(report.rows, 5899)
    }).pipe(Effect.provide(Services)))

  it.scoped("two processes appending to one workspace at once keep its chain intact", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const key = Layer.succeedContext(yield* Layer.build(auditKeyInTemp))
      const graph = servicesWith(FixtureRegistry, AuditStoreSql, key).pipe(Layer.provideMerge(databaseFromUrl(url)))
      const [one, two] = yield* Effect.all([Layer.build(graph), Layer.build(graph)], { concurrency: 2 })
      yield* createScratchTables.pipe(Effect.provide(one))
      const { principal } = yield* issuePrincipal("free").pipe(Effect.provide(one))
      const inProcess = (context: Context.Context<Executor>, offset: number) =>
        Effect.forEach(Array.from({ length: 100 }, (_, i) => offset + i), (i) => callNumber(principal, i), { concurrency: 25 }).pipe(
          Effect.provide(context)
        )
      const [fromOne, fromTwo] = yield* Effect.all([inProcess(one, 0), inProcess(two, 100)], { concurrency: 2 })
      assert.strictEqual([...fromOne, ...fromTwo].filter((r) => r.meta.audit_status === "recorded").length, 200)

      const report = yield* Effect.flatMap(AuditVerify, (v) => v.verify()).pipe(Effect.provide(two))
      assert.deepStrictEqual(summary(report), { ok: true, chains: 1, rows: 200, firstBreak: null })
      const shape = yield* chainShape.pipe(Effect.provide(one))
      assert.deepStrictEqual(shape.map((c) => [c.chain, c.rows, c.first, c.last]), [[principal.workspaceId, 200, 1, 200]])
    }))
})
