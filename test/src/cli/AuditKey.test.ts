import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { ServicesLive } from "../../../layers/App.ts"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { databaseEnv, freePort, runBrein, runBreinWithInput, tempDataDir } from "./Brein.ts"

/** The first server on a fresh database: the services in this process, with the audit key generated into a data folder of their own. */
class FirstServer extends Context.Tag("test/cli/FirstServer")<FirstServer, {
  readonly url: Redacted.Redacted<string>
  readonly dataDir: string
}>() {}

const FirstServerTest = Layer.unwrapScoped(Effect.gen(function* () {
  const url = yield* freshDatabase
  const dataDir = yield* tempDataDir
  const settings = ConfigProvider.fromMap(new Map([["BREIN_DATA_DIR", dataDir], ["BREIN_AUDIT_CHECKPOINT_MS", "50"]])).pipe(
    ConfigProvider.orElse(() => ConfigProvider.fromEnv())
  )
  return ServicesLive.pipe(
    Layer.provideMerge(databaseFromUrl(url)),
    Layer.provide(Layer.setConfigProvider(settings)),
    Layer.merge(Layer.succeed(FirstServer, { url, dataDir }))
  )
})).pipe(Layer.provideMerge(NodeContext.layer))

/** The highest seq of `chain` that a checkpoint signed (0: none). */
const signedUpTo = (chain: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ seq: number }>`SELECT coalesce(max((head->>'seq')::int), 0) AS seq
      FROM audit_checkpoint, jsonb_array_elements(heads) AS head WHERE head->>'chain' = ${chain}`).pipe(
      Effect.map((rows) => rows[0]?.seq ?? 0)
    )

/** The first server serves a call and signs a checkpoint over it; answers an API key of that call's workspace, and its chain. */
const firstServerSigns = Effect.gen(function* () {
  const workspaces = yield* Workspaces
  const issued = yield* workspaces.issueKey({ workspace: uniqueName("first"), plan: Option.some("paid") })
  const principal = yield* workspaces.authenticate(Redacted.value(issued.key)).pipe(Effect.orDie)
  yield* (yield* Executor).call("echo.message.reflect", { message: "hola" }, { surface: "library", principal })
  yield* waitUntil(signedUpTo(principal.workspaceId), (seq) => seq === 1, { what: "the first server's checkpoint" })
  return { apiKey: Redacted.value(issued.key), chain: principal.workspaceId }
})

/** `brein audit verify` where the first server keeps its data folder: every checkpoint signed with its key. */
const verifiedByFirst = Effect.gen(function* () {
  const first = yield* FirstServer
  const run = yield* runBrein(databaseEnv(first.url, first.dataDir), "audit", "verify")
  assert.strictEqual(run.exitCode, 0, run.stdout + run.stderr)
  assert.include(run.stdout, "signatures verified")
})

/** `brein serve`, expected to stop at start: one that started would serve until stopped, so the wait is bounded. */
const serveRefused = (env: Readonly<Record<string, string>>) =>
  Effect.flatMap(freePort, (port) => Effect.timeout(runBrein({ ...env, PORT: String(port) }, "serve"), "30 seconds"))

const health = (port: number) =>
  Effect.tryPromise(() => fetch(`http://127.0.0.1:${port}/health`)).pipe(
    Effect.map((response) => response.status),
    Effect.orElseSucceed(() => 0)
  )

layer(FirstServerTest, { excludeTestServices: true, timeout: "90 seconds" })(
  "brein serve and mcp over a database another data folder signs",
  (it) => {
    it.effect(
      "a second process with a data folder of its own stops at start saying where the key is, and signs nothing; read-only commands still run; with the first's audit.key copied it serves and the log verifies",
      () =>
        Effect.gen(function* () {
          const fs = yield* FileSystem.FileSystem
          const first = yield* FirstServer
          const { apiKey, chain } = yield* firstServerSigns
          const second = yield* tempDataDir
          const env = { ...databaseEnv(first.url, second), BREIN_AUDIT_CHECKPOINT_MS: "50", BREIN_API_KEY: apiKey }
          const says =
            `brein: the audit key ${second}/audit.key is missing (and BREIN_AUDIT_KEY is not set), but this database holds checkpoints signed with one: ` +
            "copy audit.key from the data folder of the server that signed them"
          const refused = [yield* serveRefused(env), yield* runBreinWithInput(env, "", "mcp")]
          for (const run of refused) {
            assert.strictEqual(run.exitCode, 1, run.stderr)
            assert.include(run.stderr, says)
            assert.strictEqual(run.stderr.split("\n").filter((line) => line.startsWith("brein:")).length, 1, run.stderr)
            assert.notMatch(run.stderr, /listening|serving MCP/i)
          }
          assert.isFalse(yield* fs.exists(`${second}/audit.key`), "no key was made")
          yield* verifiedByFirst

          // commands that never sign are not stopped: verify says it could not check the signatures here
          const unchecked = yield* runBrein(env, "audit", "verify")
          assert.strictEqual(unchecked.exitCode, 3, unchecked.stdout + unchecked.stderr)
          const listed = yield* runBrein(env, "keys", "list")
          assert.strictEqual(listed.exitCode, 0, listed.stderr)

          yield* fs.copyFile(`${first.dataDir}/audit.key`, `${second}/audit.key`)
          const port = yield* freePort
          yield* Effect.forkScoped(runBrein({ ...env, PORT: String(port) }, "serve"))
          yield* waitUntil(health(port), (status) => status === 200, {
            what: "the second server answering /health",
            every: "200 millis",
            tries: 300
          })
          const answer = yield* Effect.tryPromise(() =>
            fetch(`http://127.0.0.1:${port}/api/v1/tools/echo.message.reflect/execute`, {
              method: "POST",
              headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
              body: JSON.stringify({ input: { message: "otra" } })
            })
          )
          assert.strictEqual(answer.status, 200)
          yield* waitUntil(signedUpTo(chain), (seq) => seq === 2, { what: "the second server's checkpoint over its call" })
          yield* verifiedByFirst
        }).pipe(Effect.scoped),
      { timeout: 90_000 }
    )

    it.effect(
      "a process whose key did not sign the database's checkpoints stops at start, and signs nothing",
      () =>
        Effect.gen(function* () {
          const first = yield* FirstServer
          const { apiKey } = yield* firstServerSigns
          const env = {
            ...databaseEnv(first.url, yield* tempDataDir),
            BREIN_AUDIT_KEY: randomBytes(32).toString("base64"),
            BREIN_API_KEY: apiKey
          }
          const refused = [yield* serveRefused(env), yield* runBreinWithInput(env, "", "mcp")]
          for (const run of refused) {
            assert.strictEqual(run.exitCode, 1, run.stderr)
            assert.include(
              run.stderr,
              "brein: the audit key in BREIN_AUDIT_KEY did not sign this database's checkpoints (checkpoint 1 does not verify with it)"
            )
            assert.notMatch(run.stderr, /listening|serving MCP/i)
          }
          yield* verifiedByFirst
        }).pipe(Effect.scoped),
      { timeout: 90_000 }
    )
  }
)
