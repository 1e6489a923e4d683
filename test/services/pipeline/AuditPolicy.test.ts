import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { ConnectionId, type WorkspaceId } from "../../../schema/Ids.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, FailingAuditStore, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { createScratchTables, FixtureRegistry } from "./Fixtures.ts"

const count = (table: "probe_items" | "probe_notes", workspaceId: WorkspaceId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE workspace_id = ${workspaceId}`
  ).pipe(
    Effect.map((rows) => rows[0]?.n)
  )

layer(servicesWith(FixtureRegistry, FailingAuditStore).pipe(Layer.provideMerge(TestDatabase)))(
  "when the audit log cannot be written",
  (it) => {
    it.effect("a pure, free, readOnly action tool still answers, with audit_status failed", () =>
      Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("free")
        const response = yield* (yield* Executor).call("echo.message.reflect", { message: "hola" }, callContext(principal))
        assert.deepStrictEqual(response.data, { message: "hola" })
        assert.strictEqual(response.meta.audit_status, "failed")
      }))

    it.effect("an action tool that writes fails with AuditUnavailable and its writes are rolled back", () =>
      Effect.gen(function* () {
        yield* createScratchTables
        const { principal } = yield* issuePrincipal("free")
        const error = yield* Effect.flip((yield* Executor).call("note_write", { text: "unaudited" }, callContext(principal)))
        assert.strictEqual(error._tag, "AuditUnavailable")
        assert.strictEqual(yield* count("probe_notes", principal.workspaceId), 0)
      }))

    it.effect("a read tool fails with AuditUnavailable and nothing it persisted is committed", () =>
      Effect.gen(function* () {
        yield* createScratchTables
        const sql = yield* SqlClient.SqlClient
        const { principal } = yield* issuePrincipal("paid")
        const connectionId = ConnectionId.make(`conn_${randomBytes(6).toString("hex")}`)
        yield* sql`INSERT INTO connections (id, workspace_id, connector) VALUES (${connectionId}, ${principal.workspaceId}, 'probe')`
        const error = yield* Effect.flip(
          (yield* Executor).call("probe.conexion.sincronizar", { labels: ["a", "b"] }, callContext(principal, { connectionId }))
        )
        assert.strictEqual(error._tag, "AuditUnavailable")
        assert.strictEqual(yield* count("probe_items", principal.workspaceId), 0)
      }))

    it.effect("a readOnly tool that costs reads is not pure: it fails with AuditUnavailable", () =>
      Effect.gen(function* () {
        yield* createScratchTables
        const sql = yield* SqlClient.SqlClient
        const { principal } = yield* issuePrincipal("paid")
        const connectionId = ConnectionId.make(`conn_${randomBytes(6).toString("hex")}`)
        yield* sql`INSERT INTO connections (id, workspace_id, connector) VALUES (${connectionId}, ${principal.workspaceId}, 'probe')`
        const error = yield* Effect.flip((yield* Executor).call("probe.items.consultar", {}, callContext(principal, { connectionId })))
        assert.strictEqual(error._tag, "AuditUnavailable")
      }))
  }
)
