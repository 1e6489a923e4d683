import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { createScratchTables, FixtureRegistry } from "./Fixtures.ts"

const REFUSED = "refused at commit"

/** A deferred check the database runs at COMMIT: a note saying REFUSED fails there, after the call's audit row was written in its transaction. */
const refuseAtCommit = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql.unsafe(`CREATE OR REPLACE FUNCTION probe_refuse() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'this note is refused at commit'; END $$`),
    sql.unsafe(`DROP TRIGGER IF EXISTS probe_refuse ON probe_notes`),
    sql.unsafe(`CREATE CONSTRAINT TRIGGER probe_refuse AFTER INSERT ON probe_notes DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (NEW.text = '${REFUSED}') EXECUTE FUNCTION probe_refuse()`)
  ], { discard: true }))

layer(servicesWith(FixtureRegistry).pipe(Layer.provideMerge(TestDatabase)))(
  "a call whose transaction the database refuses at its commit",
  (it) => {
    it.effect("dies with the database's error (not a typed refusal nor an answer), its writes rolled back and the call audited as an error", () =>
      Effect.gen(function* () {
        yield* createScratchTables
        yield* refuseAtCommit
        const sql = yield* SqlClient.SqlClient
        const { principal } = yield* issuePrincipal("free")
        const executor = yield* Executor

        const exit = yield* Effect.exit(executor.call("note_write", { text: REFUSED }, callContext(principal)))
        assert.isTrue(Exit.isFailure(exit) && Option.isSome(Cause.dieOption(exit.cause)), "a defect, not an answer nor a typed refusal")
        assert.include(String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : ""), "Failed to execute statement")
        const [notes] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM probe_notes WHERE workspace_id = ${principal.workspaceId}`
        assert.strictEqual(notes?.n, 0, "the write was rolled back")
        const audited = yield* sql<{ outcome: string; errorTag: string | null }>`SELECT outcome, error_tag FROM audit_log
          WHERE workspace_id = ${principal.workspaceId} AND tool_id = 'note_write'`
        assert.deepStrictEqual(audited, [{ outcome: "error", errorTag: "Defect" }], "audited once, as the error it was, not as done")

        // Any other note commits, with its audit row: the refusal was this call's alone.
        assert.strictEqual((yield* executor.call("note_write", { text: "kept" }, callContext(principal))).meta.audit_status, "recorded")
      }))
  }
)
