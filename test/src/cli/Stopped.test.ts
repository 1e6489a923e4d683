import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import { spawn, type StdioOptions } from "node:child_process"
import { closeSync, openSync } from "node:fs"
import { breinBin } from "../../support/Bin.ts"
import { runBrein, tempDataDir } from "./Brein.ts"

/** `brein ARGS` with its own stdio; its exit code (or the signal that ended it) and its stderr, once it exits. */
const started = (env: Readonly<Record<string, string>>, stdio: StdioOptions, ...args: Array<string>) =>
  Effect.gen(function* () {
    const child = spawn(process.execPath, [breinBin, ...args], { env: { ...process.env, ...env }, stdio })
    const exited = yield* Deferred.make<number | string | null>()
    let stderr = ""
    child.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
    child.once("exit", (code, signal) => Deferred.unsafeDone(exited, Effect.succeed(code ?? signal)))
    return { child, exited: Deferred.await(exited), stderr: () => stderr }
  })

layer(NodeContext.layer, { timeout: "120 seconds" })("a command stopped before it ended", (it) => {
  it.scoped("stopped by Ctrl-C while it works exits 130 (128 + SIGINT), as a shell reports it, not 0", () =>
    Effect.gen(function* () {
      const env = { DATABASE_URL: "", BREIN_DATA_DIR: yield* tempDataDir }
      // the most companies seed makes: loading them takes far longer than the test waits for it to stop
      const seed = yield* started(env, ["ignore", "ignore", "pipe"], "seed", "--only", "directory", "--companies", "1000000")
      yield* Effect.async<void>((resume) => {
        const onData = () => {
          if (!seed.stderr().includes("loading the directory")) return
          seed.child.stderr?.off("data", onData)
          resume(Effect.void)
        }
        seed.child.stderr?.on("data", onData)
      })
      seed.child.kill("SIGINT")
      assert.strictEqual(yield* seed.exited, 130, seed.stderr())
      assert.notInclude(seed.stderr(), "brein:", "a stop asked for is not reported as a failure")
    }), { timeout: 120_000 })

  it.scoped(
    "whose output cannot be written (a full disk) exits 1 and says so on stderr; what it did stands",
    () =>
      Effect.gen(function* () {
        const env = { DATABASE_URL: "", BREIN_DATA_DIR: yield* tempDataDir }
        const full = yield* Effect.acquireRelease(Effect.sync(() => openSync("/dev/full", "w")), (fd) => Effect.sync(() => closeSync(fd)))
        // `brein keys create > key.txt` on a full disk: the key is made, its only showing is lost
        const create = yield* started(env, ["ignore", full, "pipe"], "keys", "create", "--workspace", "full")
        assert.strictEqual(yield* create.exited, 1, create.stderr())
        assert.include(create.stderr(), "brein: stdout could not be written (ENOSPC")
        const listed = yield* runBrein(env, "keys", "list", "--workspace", "full")
        assert.strictEqual(listed.exitCode, 0, listed.stderr)
        assert.match(listed.stdout, /brein_sk_/, "the key was made: the message says what the command did stands")
      }),
    { timeout: 120_000 }
  )
})
