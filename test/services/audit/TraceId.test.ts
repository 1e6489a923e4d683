import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { GENESIS, link, linkDigest } from "../../../services/audit/Chain.ts"
import { sha256 } from "../../../services/Crypto.ts"
import { AuditServices, entry, tamper, where } from "./Support.ts"

const traceOf = (requestId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ traceId: string | null }>`SELECT trace_id FROM audit_log WHERE request_id = ${requestId}`.pipe(
        Effect.map((rows) => rows[0]?.traceId)
      )
  )

describe("audit trace ids", () => {
  it.effect("a row names the trace of the call that recorded it, and verifies", () =>
    Effect.gen(function* () {
      const log = yield* AuditLog
      const sql = yield* SqlClient.SqlClient
      const first = entry("ws_t")
      const inTransaction = entry("ws_t")
      const { traceId, rows } = yield* Effect.gen(function* () {
        const span = yield* Effect.currentSpan
        const grouped = yield* log.record(first)
        const nested = yield* log.recordInTransaction(inTransaction).pipe(sql.withTransaction)
        return { traceId: span.traceId, rows: [grouped, nested] }
      }).pipe(Effect.withSpan("a call"))
      assert.match(traceId, /^[0-9a-f]+$/)
      assert.deepStrictEqual(rows.map((r) => r.traceId), [traceId, traceId])
      assert.strictEqual(yield* traceOf(first.requestId), traceId)
      assert.strictEqual(yield* traceOf(inTransaction.requestId), traceId)
      const report = yield* (yield* AuditVerify).verify()
      assert.deepStrictEqual([report.ok, report.rows], [true, 2])
      const receipt = yield* (yield* AuditVerify).receipt(first.requestId, rows[0]?.digest ?? "")
      assert.deepStrictEqual([receipt.status, receipt.traceId], ["recorded", traceId])
    }).pipe(Effect.provide(AuditServices)))

  it.effect("a chain mixing rows with and without trace ids verifies; changing a trace id in either direction breaks it", () =>
    Effect.gen(function* () {
      const log = yield* AuditLog
      const untraced = [entry("ws_m", { traceId: null }), entry("ws_m", { traceId: null })]
      yield* log.record(untraced[0]!)
      yield* log.record(entry("ws_m", { traceId: "a".repeat(32) }))
      yield* log.record(untraced[1]!)
      yield* log.record(entry("ws_m")).pipe(Effect.withSpan("a call"))
      const verify = (yield* AuditVerify).verify
      const intact = yield* verify()
      assert.deepStrictEqual([intact.ok, intact.rows], [true, 4])
      assert.strictEqual(yield* traceOf(untraced[0]!.requestId), null)

      yield* tamper(`UPDATE audit_log SET trace_id = ${"'" + "b".repeat(32) + "'"} WHERE chain = 'ws_m' AND seq = 1`)
      assert.deepStrictEqual(where(yield* verify()), ["ws_m", 1, "digest_mismatch"])
      yield* tamper(`UPDATE audit_log SET trace_id = NULL WHERE chain = 'ws_m' AND seq = 1`)
      yield* tamper(`UPDATE audit_log SET trace_id = NULL WHERE chain = 'ws_m' AND seq = 2`)
      assert.deepStrictEqual(where(yield* verify()), ["ws_m", 2, "digest_mismatch"])
    }).pipe(Effect.provide(AuditServices)))

  it("a row without a trace id digests exactly as rows did before trace ids were kept", () => {
    const [row] = link(new Map(), [entry("ws_old", { traceId: null })])
    assert.isDefined(row)
    if (row === undefined) return
    const before = [
      row.chain,
      row.seq,
      row.requestId,
      row.at.toISOString(),
      row.workspaceId,
      row.principal,
      row.surface,
      row.toolId,
      row.plane,
      row.connectionId,
      row.inputDigest,
      row.outputDigest,
      row.outcome,
      row.errorTag,
      row.latencyMs,
      row.cost
    ]
    assert.strictEqual(row.digest, sha256(`${GENESIS}\n${JSON.stringify(before)}`))
    assert.strictEqual(linkDigest({ ...row }), row.digest)
    const { traceId: _, ...absent } = row
    assert.strictEqual(linkDigest(absent), row.digest)
    assert.notStrictEqual(linkDigest({ ...row, traceId: "c".repeat(32) }), row.digest)
    assert.isTrue(Option.isNone(Option.fromNullable(row.traceId)))
  })
})
