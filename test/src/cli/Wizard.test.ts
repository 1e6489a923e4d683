import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { runBreinWithInput, tempDataDir } from "./Brein.ts"

const ENDED =
  "brein: the input ended before --wizard's questions were answered: the wizard needs a terminal (or give the command its flags; --help lists them)"

/** `brein ARGS` reading `input`, with the embedded database in an empty data folder; answers what the folder holds after. */
const wizard = (input: string, ...args: Array<string>) =>
  Effect.gen(function* () {
    const dataDir = yield* tempDataDir
    // a wizard that waited for input that never comes would hang here: the bound makes it a failure
    const run = yield* runBreinWithInput({ DATABASE_URL: "", BREIN_DATA_DIR: dataDir }, input, ...args).pipe(
      Effect.timeoutFail({ duration: "15 seconds", onTimeout: () => new Error(`brein ${args.join(" ")} waited past its input`) })
    )
    const left = yield* (yield* FileSystem.FileSystem).readDirectory(dataDir)
    return { ...run, left }
  }).pipe(Effect.scoped)

layer(NodeContext.layer, { timeout: "60 seconds" })("brein --wizard", (it) => {
  it.effect("with its input ended (</dev/null) exits 2 saying the wizard needs a terminal, and starts nothing", () =>
    Effect.gen(function* () {
      for (const args of [["serve", "--wizard"], ["--wizard"]]) {
        const run = yield* wizard("", ...args)
        assert.strictEqual(run.exitCode, 2, run.stderr)
        assert.strictEqual(run.stderr.trim(), ENDED)
        assert.deepStrictEqual(run.left, [], args.join(" "))
      }
    }))

  it.effect("asks in our own words, as the help page says each flag: never @effect/cli's sentence for its type", () =>
    Effect.gen(function* () {
      const run = yield* wizard("\r", "keys", "create", "--wizard")
      assert.strictEqual(run.exitCode, 2, run.stderr)
      // the answered question (--data-dir) and the one the input ended at (--workspace)
      assert.include(run.stdout, "Folder for the embedded PostgreSQL and the credentials key")
      assert.include(run.stdout, "The key's workspace, created if needed")
      assert.notInclude(run.stdout, "A user-defined piece of text.")
    }))

  it.effect("reads the keys that came before the end, then exits 2 at the question it has no answer for", () =>
    Effect.gen(function* () {
      const run = yield* wizard("\r", "anchors", "--wizard")
      assert.strictEqual(run.exitCode, 2, run.stderr)
      assert.include(run.stdout, "COMMAND: brein anchors check")
      assert.strictEqual(run.stderr.trim(), ENDED)
    }))
})
