import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { spawn } from "node:child_process"
import { breinBin } from "../../support/Bin.ts"
import { runBrein, tempDataDir } from "./Brein.ts"

layer(NodeContext.layer, { timeout: "120 seconds" })("a reader of brein's output that goes away", (it) => {
  it.scoped("stops brein as SIGTERM does: its embedded PostgreSQL is stopped, not left running", () =>
    Effect.gen(function* () {
      const env = { DATABASE_URL: "", BREIN_DATA_DIR: yield* tempDataDir }
      // made once, so the run below only starts the database and logs at Debug while it does
      assert.strictEqual((yield* runBrein(env, "workspaces", "list")).exitCode, 0)

      const child = spawn(process.execPath, [breinBin, "workspaces", "list", "--log-level", "debug"], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      const exited = yield* Deferred.make<number | null>()
      child.once("exit", (code) => Deferred.unsafeDone(exited, Effect.succeed(code)))
      // `… 2>&1 | head -1`: the first line read, then the pipe closed while brein still writes
      yield* Effect.async<void>((resume) => {
        child.stderr.once("data", () => {
          child.stderr.destroy()
          child.stdout.destroy()
          resume(Effect.void)
        })
      })
      assert.strictEqual(yield* Deferred.await(exited), 0, "stopped, not thrown out by EPIPE")

      const next = yield* runBrein({ ...env, LOG_LEVEL: "Info" }, "workspaces", "list")
      assert.strictEqual(next.exitCode, 0, next.stderr)
      assert.notInclude(next.stderr, "reusing running embedded PostgreSQL", "the last run's database was left running")
      assert.include(next.stderr, "embedded PostgreSQL started", "this run started its own")
    }), { timeout: 120_000 })
})
