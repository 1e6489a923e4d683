import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Scope } from "effect"
import { AuditCoverage } from "../../../services/audit/AuditCoverage.ts"
import { AuditKey } from "../../../services/audit/AuditKey.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { AuditServices, entry } from "./Support.ts"

const verify = Effect.flatMap(AuditVerify, (v) => v.verify())
const every20ms = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["BREIN_AUDIT_CHECKPOINT_MS", "20"]])))

/** A serving process: it signs with the test's key every 20 ms, and hears other processes' chains. */
const server = Layer.merge(AuditLog.Default, AuditCoverage.Default).pipe(Layer.provide(every20ms))

/** An operator's command: the same database and key, but it signs no checkpoint (as `brein keys create`). */
const command = Effect.map(AuditKey, (key) =>
  Layer.merge(AuditLog.Default, AuditCoverage.Default).pipe(
    Layer.provide(Layer.succeed(AuditKey, AuditKey.of({ ...key, forSigning: Effect.succeedNone })))
  ))

/** Runs a command that writes `count` rows in `chain`, dated now, and ends. */
const runCommand = (chain: string, count: number) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const built = yield* Layer.buildWithScope(yield* command, scope)
    const log = yield* Effect.provide(AuditLog, built)
    const coverage = yield* Effect.provide(AuditCoverage, built)
    assert.isFalse(coverage.signs)
    yield* Effect.forEach(Array.from({ length: count }, () => entry(chain, { at: new Date() })), (e) => log.record(e))
    yield* Scope.close(scope, Exit.void)
  })

const workspace = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO workspaces (id, name, plan) VALUES (${id}, ${id}, 'free')`)

describe("audit coverage of rows written by operator commands", () => {
  it.live("a running server signs the rows a command wrote in a chain the server never writes", () =>
    Effect.gen(function* () {
      yield* workspace("ws_revoked")
      yield* Layer.build(server)
      yield* runCommand("ws_revoked", 2)
      const report = yield* waitUntil(verify, (r) => r.checkpoints.count > 0 && r.checkpoints.uncovered === 0, {
        what: "a checkpoint covering the command's rows"
      })
      assert.isTrue(report.ok)
      assert.strictEqual(report.rows, 2)
    }).pipe(Effect.scoped, Effect.provide(AuditServices)))

  it.live("a server that starts signs the rows commands wrote while no server ran, after the last checkpoint", () =>
    Effect.gen(function* () {
      yield* workspace("ws_before")
      yield* workspace("ws_meanwhile")
      // a first server signs ws_before's rows, and stops
      const first = yield* Scope.make()
      const log = yield* Effect.provide(AuditLog, yield* Layer.buildWithScope(server, first))
      yield* log.record(entry("ws_before", { at: new Date() }))
      yield* waitUntil(verify, (r) => r.checkpoints.count > 0 && r.checkpoints.uncovered === 0, { what: "the first server's checkpoint" })
      yield* Scope.close(first, Exit.void)

      yield* runCommand("ws_meanwhile", 3)
      assert.strictEqual((yield* verify).checkpoints.uncovered, 3, "nobody listened: the command's rows are not signed yet")

      const signedBefore = (yield* verify).checkpoints.count
      yield* Layer.build(server)
      const report = yield* waitUntil(verify, (r) => r.checkpoints.uncovered === 0, { what: "the new server's checkpoint" })
      assert.isTrue(report.ok)
      assert.isAbove(report.checkpoints.count, signedBefore)
    }).pipe(Effect.scoped, Effect.provide(AuditServices)))
})
