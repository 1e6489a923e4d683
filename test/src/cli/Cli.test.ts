import { Command, FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, Stream, String as Str } from "effect"
import { ServicesLive } from "../../../layers/App.ts"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"

class CliDatabaseUrl extends Context.Tag("test/cli/CliDatabaseUrl")<CliDatabaseUrl, Redacted.Redacted<string>>() {}

/** A fresh database the spawned CLI points at, and the services over it for checking what the CLI did. */
const CliTest = Layer.unwrapScoped(
  Effect.map(freshDatabase, (url) =>
    ServicesLive.pipe(Layer.provideMerge(databaseFromUrl(url)), Layer.merge(Layer.succeed(CliDatabaseUrl, url))))
).pipe(Layer.provideMerge(NodeContext.layer))

const collect = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** `brein ARGS` as a user runs it: its own process, DATABASE_URL, and a data folder of its own. */
const brein = (...args: Array<string>) =>
  Effect.gen(function*() {
    const url = yield* CliDatabaseUrl
    const dataDir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-cli-" })
    const command = Command.make("node", "--import", "tsx", "src/main.ts", ...args).pipe(
      Command.env({ DATABASE_URL: Redacted.value(url), BREIN_DATA_DIR: dataDir })
    )
    const child = yield* Command.start(command)
    const [stdout, stderr, exitCode] = yield* Effect.all([collect(child.stdout), collect(child.stderr), child.exitCode], {
      concurrency: "unbounded"
    })
    return { stdout, stderr, exitCode: Number(exitCode) }
  }).pipe(Effect.scoped)

layer(CliTest, { excludeTestServices: true, timeout: "60 seconds" })("brein CLI", (it) => {
  it.effect("keys create prints only the key, and the key authenticates as that paid workspace", () =>
    Effect.gen(function*() {
      const run = yield* brein("keys", "create", "--workspace", "acme", "--plan", "paid")
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const lines = Str.linesIterator(run.stdout)
      const [key, ...rest] = [...lines]
      assert.deepStrictEqual(rest, [])
      assert.match(key ?? "", /^brein_sk_[A-Za-z0-9_-]+$/)
      const principal = yield* (yield* Workspaces).authenticate(key ?? "")
      assert.deepStrictEqual({ workspace: principal.workspaceName, plan: principal.plan }, { workspace: "acme", plan: "paid" })
    }))

  it.effect("keys create with an unknown plan exits 2 and says why on stderr", () =>
    Effect.gen(function*() {
      const run = yield* brein("keys", "create", "--workspace", "acme", "--plan", "bogus")
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      assert.include(run.stderr, `--plan must be free or paid, not "bogus"`)
    }))

  it.effect("audit verify exits 0 on an intact chain and 1 naming the first tampered row", () =>
    Effect.gen(function*() {
      const principal = yield* (yield* Workspaces).inProcess("ledger")
      const executor = yield* Executor
      const responses = yield* Effect.forEach(["one", "two", "three"], (message) =>
        executor.call("echo.message.reflect", { message }, { surface: "library", principal }))
      const intact = yield* brein("audit", "verify")
      assert.strictEqual(intact.exitCode, 0, intact.stderr)
      assert.match(intact.stdout, /intact: 3 rows in 1 chains/)

      const tampered = responses[1]?.meta.request_id ?? ""
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE audit_log SET output_digest = ${"0".repeat(64)} WHERE request_id = ${tampered}`
      const broken = yield* brein("audit", "verify")
      assert.strictEqual(broken.exitCode, 1, broken.stderr)
      assert.include(broken.stdout, `seq 2 (request ${tampered})`)
      assert.include(broken.stdout, "digest_mismatch")
    }))

  it.effect("an unknown command exits 2 with the usage on stderr", () =>
    Effect.gen(function*() {
      const run = yield* brein("frobnicate")
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      assert.include(run.stderr, `unknown command "frobnicate"`)
      assert.include(run.stderr, "brein keys create")
    }))
})
