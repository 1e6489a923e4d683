import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Layer, Option, Scope } from "effect"
import type { AuditRow } from "../../../schema/audit/AuditRow.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { AuditStore } from "../../../services/audit/AuditStore.ts"
import { AuditStoreSql } from "../../../services/audit/AuditStoreSql.ts"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { link, signCheckpoint } from "../../../services/audit/Chain.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { auditKeyInTemp } from "../../support/TestAuditKey.ts"
import { AuditServices, entry, recordMany, tamper, where } from "./Support.ts"

const verify = Effect.flatMap(AuditVerify, (v) => v.verify())
const checkpoint = Effect.flatMap(AuditLog, (log) => log.checkpoint())

describe("audit checkpoints", () => {
  it.effect("the database refuses UPDATE, DELETE and TRUNCATE of the log and of its checkpoints", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* recordMany("ws_a", 3)
      assert.isTrue(Option.isSome(yield* checkpoint))
      for (
        const statement of [
          "UPDATE audit_log SET outcome = 'error' WHERE seq = 2",
          "DELETE FROM audit_log WHERE seq = 3",
          "TRUNCATE audit_log",
          "UPDATE audit_checkpoint SET signature = 'x'",
          "DELETE FROM audit_checkpoint",
          "TRUNCATE audit_checkpoint"
        ]
      ) {
        const refused = yield* Effect.flip(sql.unsafe(statement))
        assert.include(String(refused.cause), "append-only", statement)
      }
      const [counts] = yield* sql<{ rows: number; checkpoints: number }>`
        SELECT (SELECT count(*)::int FROM audit_log) AS rows, (SELECT count(*)::int FROM audit_checkpoint) AS checkpoints`
      assert.deepStrictEqual(counts, { rows: 3, checkpoints: 1 })
    }).pipe(Effect.provide(AuditServices)))

  it.effect("an intact log verifies its signatures and counts the rows after the last checkpoint", () =>
    Effect.gen(function* () {
      yield* recordMany("ws_a", 4)
      yield* recordMany("ws_b", 2)
      yield* checkpoint
      yield* recordMany("ws_a", 3)
      const report = yield* verify
      assert.deepStrictEqual(report.checkpoints, { count: 1, signatures: "verified", witness: "matched", uncovered: 3 })
      assert.isTrue(report.ok)
    }).pipe(Effect.provide(AuditServices)))

  it.effect("deleting a chain's last rows is named chain_truncated", () =>
    Effect.gen(function* () {
      yield* recordMany("ws_a", 6)
      yield* checkpoint
      assert.isTrue((yield* verify).ok)
      yield* tamper("DELETE FROM audit_log WHERE chain = 'ws_a' AND seq > 4")
      const report = yield* verify
      assert.deepStrictEqual(where(report), ["ws_a", 4, "chain_truncated"])
      assert.include(report.firstBreak?.detail, "signed seq 6")
    }).pipe(Effect.provide(AuditServices)))

  it.effect("deleting a whole chain is named chain_deleted", () =>
    Effect.gen(function* () {
      yield* recordMany("ws_a", 2)
      yield* recordMany("ws_b", 3)
      yield* checkpoint
      yield* tamper("DELETE FROM audit_log WHERE chain = 'ws_b'")
      const report = yield* verify
      assert.deepStrictEqual(where(report), ["ws_b", 3, "chain_deleted"])
      assert.strictEqual(report.rows, 2)
    }).pipe(Effect.provide(AuditServices)))

  it.effect("the heads of more chains than a statement may carry parameters (65,535) are read in one statement", () =>
    Effect.gen(function* () {
      const store = yield* AuditStore
      yield* recordMany("ws_a", 2)
      yield* recordMany("ws_b", 1)
      // a checkpoint's chains: every workspace that wrote since the last one, and more after one failed
      const chains = ["ws_a", ...Array.from({ length: 70_000 }, (_, i) => `ws_quiet${i}`), "ws_b"]
      const heads = yield* store.heads(chains)
      assert.deepStrictEqual([...heads].map(([chain, head]) => [chain, head.seq]).sort(), [["ws_a", 2], ["ws_b", 1]])
    }).pipe(Effect.provide(AuditServices)))

  it.effect("rewriting a row and re-chaining everything after it is named rechained", () =>
    Effect.gen(function* () {
      const store = yield* AuditStore
      yield* recordMany("ws_a", 6)
      yield* checkpoint
      const rows: ReadonlyArray<AuditRow> = yield* store.page(Option.none(), 100)
      const kept = rows[1]!
      const rewritten = rows.slice(2).map((row, i) => ({ ...row, outcome: i === 0 ? ("error" as const) : row.outcome }))
      const rechained = link(new Map([["ws_a", kept]]), rewritten)
      yield* tamper("DELETE FROM audit_log WHERE chain = 'ws_a' AND seq > 2")
      yield* store.insert(rechained)
      const report = yield* verify
      assert.deepStrictEqual(where(report), ["ws_a", 6, "rechained"])
    }).pipe(Effect.provide(AuditServices)))

  it.effect("a checkpoint signed with another key is named checkpoint_forged", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* recordMany("ws_a", 2)
      const first = yield* checkpoint
      const previous = Option.getOrThrow(first).signature
      const forged = { seq: 2, at: new Date(), heads: [{ chain: "ws_a", seq: 9, digest: "f".repeat(64) }], prevSignature: previous }
      const signature = signCheckpoint(new Uint8Array(32).fill(7), forged)
      yield* sql`INSERT INTO audit_checkpoint (seq, at, heads, prev_signature, signature)
        VALUES (2, ${forged.at}, ${JSON.stringify(forged.heads)}::jsonb, ${previous}, ${signature})`
      assert.deepStrictEqual(where(yield* verify), ["audit_checkpoint", 2, "checkpoint_forged"])
    }).pipe(Effect.provide(AuditServices)))

  it.effect("a deleted checkpoint is named checkpoint_missing, the newest one through the witness outside the database", () =>
    Effect.gen(function* () {
      for (let i = 0; i < 3; i++) {
        yield* recordMany("ws_a", 1)
        yield* checkpoint
      }
      assert.deepStrictEqual((yield* verify).checkpoints.count, 3)
      yield* tamper("DELETE FROM audit_checkpoint WHERE seq = 2")
      const middle = yield* verify
      assert.deepStrictEqual(where(middle), ["audit_checkpoint", 2, "checkpoint_missing"])
      yield* tamper("DELETE FROM audit_checkpoint WHERE seq = 3")
      const newest = yield* verify
      assert.deepStrictEqual(where(newest), ["audit_checkpoint", 3, "checkpoint_missing"])
      assert.include(newest.firstBreak?.detail, "witness")
    }).pipe(Effect.provide(AuditServices)))

  it.effect("without the key, verify says the signatures went unchecked", () =>
    Effect.gen(function* () {
      yield* recordMany("ws_a", 2)
      yield* checkpoint
      const report = yield* verify.pipe(Effect.provide(AuditVerify.Default.pipe(Layer.provide(Layer.merge(AuditStoreSql, auditKeyInTemp)))))
      assert.isTrue(report.ok)
      assert.deepStrictEqual(report.checkpoints, { count: 1, signatures: "unchecked", witness: "absent", uncovered: 0 })
    }).pipe(Effect.provide(AuditServices)))

  it.effect("two writers checkpointing at once keep one contiguous, signed sequence", () =>
    Effect.gen(function* () {
      const other = yield* Layer.build(AuditLog.Default.pipe(Layer.provide(AuditStoreSql)))
      const logs = [yield* AuditLog, Context.get(other, AuditLog)]
      let written = 0
      for (let round = 0; round < 10; round++) {
        yield* Effect.forEach(logs, (log, i) => log.record(entry(i === 0 ? "ws_a" : "ws_b")), { concurrency: 2 })
        const signed = yield* Effect.forEach(logs, (log) => log.checkpoint(), { concurrency: 2 })
        written += signed.filter(Option.isSome).length
      }
      const report = yield* verify
      assert.isTrue(report.ok, JSON.stringify(report.firstBreak))
      assert.strictEqual(report.checkpoints.count, written)
      assert.strictEqual(report.checkpoints.uncovered, 0)
    }).pipe(Effect.scoped, Effect.provide(AuditServices)))

  it.effect("a writer with another key than the one that signed the last checkpoint signs nothing, and the log still verifies", () =>
    Effect.gen(function* () {
      // two servers on one database, each with a data folder (and so a key) of its own, both started before either signed
      const foreign = yield* Layer.build(AuditLog.Default.pipe(Layer.provide(Layer.merge(AuditStoreSql, auditKeyInTemp))))
      const other = Context.get(foreign, AuditLog)
      const sql = yield* SqlClient.SqlClient
      const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_checkpoint`.pipe(Effect.map((r) => r[0]?.n ?? 0))
      yield* recordMany("ws_a", 2)
      assert.isTrue(Option.isSome(yield* checkpoint), "the first to sign signs")
      yield* other.record(entry("ws_b"))
      const refused = yield* Effect.flip(other.checkpoint())
      assert.strictEqual(refused._tag, "AuditKeyForeign")
      if (refused._tag === "AuditKeyForeign") {
        assert.strictEqual(refused.seq, 1)
        assert.include(refused.message, "was signed with another audit key than this server's")
      }
      assert.strictEqual(yield* count, 1, "nothing signed with the other key")
      const report = yield* verify
      assert.isTrue(report.ok, JSON.stringify(report.firstBreak))
      assert.deepStrictEqual(report.checkpoints, { count: 1, signatures: "verified", witness: "matched", uncovered: 1 })

      // the first goes on signing, and covers what it writes
      yield* recordMany("ws_a", 1)
      assert.isTrue(Option.isSome(yield* checkpoint))
      assert.isTrue((yield* verify).ok)
      assert.strictEqual(yield* count, 2)
    }).pipe(Effect.scoped, Effect.provide(AuditServices)))

  it.live("the writer checkpoints every BREIN_AUDIT_CHECKPOINT_MS and once more when it closes", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const checkpoints = sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_checkpoint`.pipe(Effect.map((r) => r[0]?.n ?? 0))
      const every20ms = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["BREIN_AUDIT_CHECKPOINT_MS", "20"]])))
      const periodicScope = yield* Scope.make()
      const periodic = yield* Layer.buildWithScope(
        AuditLog.Default.pipe(Layer.provide(AuditStoreSql), Layer.provide(every20ms)),
        periodicScope
      )
      yield* recordMany("ws_a", 2).pipe(Effect.provide(periodic))
      yield* waitUntil(verify, (r) => r.checkpoints.count > 0 && r.checkpoints.uncovered === 0, { what: "a periodic checkpoint" })
      yield* Scope.close(periodicScope, Exit.void)

      const scope = yield* Scope.make()
      const slow = yield* Layer.buildWithScope(AuditLog.Default.pipe(Layer.provide(AuditStoreSql)), scope)
      const before = yield* checkpoints
      yield* recordMany("ws_b", 2).pipe(Effect.provide(slow))
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* checkpoints, before + 1)
      assert.strictEqual((yield* verify).checkpoints.uncovered, 0)
    }).pipe(Effect.scoped, Effect.provide(AuditServices)))
})
