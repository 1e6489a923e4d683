import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Redacted } from "effect"
import * as Path from "node:path"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { freePort, type Run, runBrein, tempDataDir } from "./Brein.ts"

/** `brein serve` on `dataDir`, which must end by itself well before the test does (it hung, making the folder). */
const serveOn = (env: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    return yield* runBrein({ ...env, PORT: String(yield* freePort) }, "serve").pipe(
      Effect.timeoutFail({
        duration: Duration.seconds(30),
        onTimeout: () => new Error(`brein serve did not stop on ${env["BREIN_DATA_DIR"]}`)
      })
    )
  })

const breinLines = (run: Run) => run.stderr.split("\n").filter((line) => line.startsWith("brein: "))

layer(NodeContext.layer, { excludeTestServices: true })("a data folder that cannot be made", (it) => {
  it.scoped(
    "stops serve at start with exit 1 and one line naming the folder, with the embedded database or DATABASE_URL",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const file = Path.join(yield* tempDataDir, "a-file")
        yield* fs.writeFileString(file, "")
        const url = Redacted.value(yield* freshDatabase)
        const runs = [
          { env: { DATABASE_URL: "", BREIN_DATA_DIR: "/proc/brein-data" }, says: "no folder can be created in /proc (ENOENT)" },
          { env: { DATABASE_URL: url, BREIN_DATA_DIR: "/proc/brein-data" }, says: "no folder can be created in /proc (ENOENT)" },
          { env: { DATABASE_URL: "", BREIN_DATA_DIR: Path.join(file, "data") }, says: `${file} is a file, not a folder` }
        ]
        for (const { env, says } of runs) {
          const run = yield* serveOn(env)
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.deepStrictEqual(breinLines(run), [`brein: cannot create the folder ${env.BREIN_DATA_DIR}: ${says}`], run.stderr)
          assert.notMatch(run.stderr, /listening/i)
        }
      }),
    { timeout: 120_000 }
  )
})
