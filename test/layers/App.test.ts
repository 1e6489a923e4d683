import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { AppLive } from "../../layers/App.ts"
import { AuditVerify } from "../../services/audit/AuditVerify.ts"
import { Executor } from "../../services/pipeline/Executor.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"

/** AppLive as `npm start` builds it with no DATABASE_URL: the embedded server under the data folder. */
const embeddedApp = (dataDir: string) =>
  AppLive.pipe(
    Layer.provide(Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map([["DATABASE_URL", ""], ["BREIN_DATA_DIR", dataDir], ["BREIN_PG_PORT", "0"]])).pipe(
        ConfigProvider.orElse(() => ConfigProvider.fromEnv())
      )
    ))
  )

const dataFolder = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "brein-app-" })
  // as root the cluster runs as the postgres user, which must be able to enter the folder
  yield* fs.chmod(root, 0o755)
  return root
})

const postmasterPid = (dataDir: string) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(`${dataDir}/pg/postmaster.pid`)).pipe(
    Effect.map((text) => text.split("\n")[0] ?? "")
  )

const postmasterRuns = (dataDir: string) => Effect.flatMap(FileSystem.FileSystem, (fs) => fs.exists(`${dataDir}/pg/postmaster.pid`))

const workspaceCount = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM workspaces WHERE name = ${name}`).pipe(
    Effect.map((rows) => rows[0]?.n ?? 0)
  )

describe("AppLive on the embedded PostgreSQL", () => {
  it.scopedLive("serves a call, stops its server, and finds the same data when started again", () =>
    Effect.gen(function* () {
      const dataDir = yield* dataFolder

      const requestId = yield* Effect.gen(function* () {
        const principal = yield* (yield* Workspaces).inProcess("acme")
        const response = yield* (yield* Executor).call("core.timestamp.now", { timezone: "America/Santiago" }, {
          surface: "library",
          principal
        })
        assert.strictEqual(response.meta.audit_status, "recorded")
        assert.isTrue(yield* postmasterRuns(dataDir))
        return response.meta.request_id
      }).pipe(Effect.provide(embeddedApp(dataDir)))
      assert.isFalse(yield* postmasterRuns(dataDir), "closing AppLive stops the server it started")

      yield* Effect.gen(function* () {
        const principal = yield* (yield* Workspaces).principalFor("acme")
        assert.strictEqual(principal.workspaceName, "acme")
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ requestId: string; toolId: string }>`SELECT request_id, tool_id FROM audit_log`
        assert.deepStrictEqual(rows, [{ requestId, toolId: "core.timestamp.now" }])
        const report = yield* (yield* AuditVerify).verify()
        assert.deepStrictEqual({ ok: report.ok, rows: report.rows }, { ok: true, rows: 1 })
      }).pipe(Effect.provide(embeddedApp(dataDir)))
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })

  it.scopedLive("a second AppLive on the same data folder shares the running server and leaves it running", () =>
    Effect.gen(function* () {
      const dataDir = yield* dataFolder
      yield* Effect.gen(function* () {
        const owner = yield* postmasterPid(dataDir)
        yield* Effect.gen(function* () {
          yield* (yield* Workspaces).inProcess("from-the-cli")
          assert.strictEqual(yield* postmasterPid(dataDir), owner, "the second AppLive must not start another server")
        }).pipe(Effect.provide(embeddedApp(dataDir)))
        assert.strictEqual(yield* postmasterPid(dataDir), owner, "closing the borrower must not stop the owner's server")
        assert.strictEqual(yield* workspaceCount("from-the-cli"), 1)
      }).pipe(Effect.provide(embeddedApp(dataDir)))
      assert.isFalse(yield* postmasterRuns(dataDir))
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })
})
