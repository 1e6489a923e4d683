import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AuditVerify } from "../../../services/audit/AuditVerify.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { createScratchTables, FixtureRegistry } from "../pipeline/Fixtures.ts"

const Services = servicesWith(FixtureRegistry).pipe(Layer.provideMerge(TestDatabase))

describe("receipts", () => {
  it.effect("a recorded answer carries its row's chain, seq and digest, and verify confirms it", () =>
    Effect.gen(function* () {
      yield* createScratchTables
      const sql = yield* SqlClient.SqlClient
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      const pure = yield* executor.call("echo.message.reflect", { message: "hola" }, callContext(principal))
      const written = yield* executor.call("note_write", { text: "nota" }, callContext(principal))
      for (const response of [pure, written]) {
        const [row] = yield* sql<{ chain: string; seq: number; digest: string }>`
          SELECT chain, seq::int AS seq, digest FROM audit_log WHERE request_id = ${response.meta.request_id}`
        assert.deepStrictEqual(response.meta.receipt, row)
      }

      const verify = yield* AuditVerify
      const held = yield* verify.receipt(pure.meta.request_id, pure.meta.receipt?.digest ?? "")
      assert.deepStrictEqual([held.status, held.chain, held.seq, held.report.ok], ["recorded", principal.workspaceId, 1, true])
      const other = yield* verify.receipt(pure.meta.request_id, written.meta.receipt?.digest ?? "")
      assert.strictEqual(other.status, "digest_differs")
      const unknown = yield* verify.receipt("req_never", pure.meta.receipt?.digest ?? "")
      assert.strictEqual(unknown.status, "not_found")
    }).pipe(Effect.provide(Services)))
})
