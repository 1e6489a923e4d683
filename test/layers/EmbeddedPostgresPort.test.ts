import { Reactivity } from "@effect/experimental"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Redacted } from "effect"
import { startEmbeddedPostgres } from "../../layers/EmbeddedPostgres.ts"
import { heldPort } from "../support/HeldPort.ts"
import { RecordedLogs, RecordLogs } from "../support/TestLogging.ts"

/** A temporary folder for a cluster, open so that as root the postgres user reaches it. */
const clusterFolder = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "brein-embedded-port-" })
  yield* fs.chmod(root, 0o755)
  return `${root}/pg`
})

/** The tables of the cluster at `url` (after making `name`), which tell two clusters apart. */
const tablesOf = (url: Redacted.Redacted<string>, name?: string) =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url }), (sql) =>
    Effect.zipRight(
      name === undefined ? Effect.void : sql.unsafe(`CREATE TABLE ${name} (id int)`),
      sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`
    ))).pipe(Effect.map((rows) => rows.map((row) => row.name)), Effect.provide(Reactivity.layer))

describe("EmbeddedPostgres's port", () => {
  it.scopedLive("two clusters asked at once for one port both start, one on it and one on another", () =>
    Effect.gen(function* () {
      // a port nothing holds now; the scope closes its holder before the clusters ask for it
      const port = yield* Effect.scoped(heldPort)
      const [first, second] = [yield* clusterFolder, yield* clusterFolder]
      const [a, b] = yield* Effect.all([
        startEmbeddedPostgres({ directory: first, port }),
        startEmbeddedPostgres({ directory: second, port })
      ], { concurrency: "unbounded" })
      assert.notStrictEqual(a.port, b.port)
      assert.include([a.port, b.port], port)
      assert.deepStrictEqual(yield* tablesOf(a.url, "first_cluster"), ["first_cluster"])
      assert.deepStrictEqual(yield* tablesOf(b.url, "second_cluster"), ["second_cluster"], "each URL reaches its own cluster")
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })

  it.scopedLive("a port another program holds is left to it: the cluster starts on another and says which", () =>
    Effect.gen(function* () {
      const held = yield* heldPort
      const server = yield* startEmbeddedPostgres({ directory: yield* clusterFolder, port: held })
      assert.notStrictEqual(server.port, held)
      assert.deepStrictEqual(yield* tablesOf(server.url), [])
      const lines = yield* (yield* RecordedLogs).lines
      assert.isTrue(
        lines.some((line) => line.includes(`port ${held} is taken: the embedded PostgreSQL takes ${server.port} instead`)),
        lines.join("\n")
      )
    }).pipe(Effect.provide([NodeContext.layer, RecordLogs])), { timeout: 120_000 })
})
