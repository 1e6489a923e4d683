import { Reactivity } from "@effect/experimental"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import type { Redacted } from "effect"
import { Effect } from "effect"
import * as Path from "node:path"
import { startEmbeddedPostgres } from "../../layers/EmbeddedPostgres.ts"
import { shippedBinaries } from "../../layers/PostgresProcess.ts"

const isRoot = process.getuid?.() === 0

const selectOne = (url: Redacted.Redacted<string>) =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url }), (sql) => sql<{ one: number }>`SELECT 1 AS one`)).pipe(
    Effect.provide(Reactivity.layer)
  )

// PostgreSQL runs as the postgres user only when brein runs as root; as any other user there is nothing to prove.
describe.skipIf(!isRoot)("EmbeddedPostgres as root from a private (0700) folder (runs only as root)", () => {
  it.scopedLive("keeps the binaries and the data where the postgres user can reach them, and starts", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const home = yield* fs.makeTempDirectoryScoped({ prefix: "brein-private-" })
      yield* fs.chmod(home, 0o700)
      // A checkout inside the private folder: its node_modules hold the binaries.
      const shipped = yield* shippedBinaries
      const checkout = Path.join(home, "checkout", "native")
      yield* fs.makeDirectory(Path.dirname(checkout), { recursive: true })
      yield* fs.copy(shipped.root, checkout)
      const asked = Path.join(home, "checkout", ".brein", "pg")

      const server = yield* startEmbeddedPostgres({ directory: asked, port: 0, binaries: { root: checkout } }).pipe(
        Effect.tap((server) =>
          Effect.addFinalizer(() =>
            Effect.all([fs.remove(Path.dirname(server.directory), { recursive: true }), fs.remove(server.binaries, { recursive: true })])
              .pipe(
                Effect.ignore
              )
          )
        )
      )
      assert.isTrue(server.owned)
      assert.isFalse(server.directory.startsWith(home), `the data must leave the private folder, got ${server.directory}`)
      assert.isFalse(server.binaries.startsWith(home), `the binaries must leave the private folder, got ${server.binaries}`)
      assert.deepStrictEqual(yield* selectOne(server.url), [{ one: 1 }])

      const again = yield* Effect.scoped(startEmbeddedPostgres({ directory: asked, port: 0, binaries: { root: checkout } }))
      assert.deepStrictEqual([again.directory, again.owned], [server.directory, false], "a second run finds the same relocated cluster")
    }).pipe(Effect.provide(NodeContext.layer)), { timeout: 120_000 })
  it.scopedLive(
    "relocates the data of a first start whose data folder does not exist yet in an open checkout",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        // An open checkout (0755, as under /tmp) and no .brein yet: the folder brein creates for its data is private.
        const checkout = yield* fs.makeTempDirectoryScoped({ prefix: "brein-open-" })
        yield* fs.chmod(checkout, 0o755)
        const asked = Path.join(checkout, ".brein", "pg")
        const server = yield* startEmbeddedPostgres({ directory: asked, port: 0 }).pipe(
          Effect.tap((server) =>
            Effect.addFinalizer(() => fs.remove(Path.dirname(server.directory), { recursive: true }).pipe(Effect.ignore))
          )
        )
        assert.isFalse(server.directory.startsWith(checkout), `the data must leave the private data folder, got ${server.directory}`)
        assert.deepStrictEqual(yield* selectOne(server.url), [{ one: 1 }])
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )
})
