import { Reactivity } from "@effect/experimental"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import type { Redacted } from "effect"
import { Effect, Logger } from "effect"
import * as Path from "node:path"
import { startEmbeddedPostgres } from "../../layers/EmbeddedPostgres.ts"
import { digest, place, shelves } from "../../layers/PostgresPlacement.ts"
import { shippedBinaries } from "../../layers/PostgresProcess.ts"
import { shelvedRemovedAtEnd } from "../support/Shelf.ts"

const isRoot = process.getuid?.() === 0

const logged = (lines: Array<string>) =>
  Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void lines.push(line)))

/** A data folder inside a private (0700) home, as under /root: its database cannot stay in it. */
const privateDataFolder = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const home = yield* fs.makeTempDirectoryScoped({ prefix: "brein-private-" })
  yield* fs.chmod(home, 0o700)
  const asked = Path.join(home, ".brein", "pg")
  yield* shelvedRemovedAtEnd(asked)
  return asked
})

const query = <A extends object>(url: Redacted.Redacted<string>, statement: string) =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url }), (sql) => sql.unsafe<A>(statement))).pipe(Effect.provide(Reactivity.layer))

const selectOne = (url: Redacted.Redacted<string>) => query<{ one: number }>(url, "SELECT 1 AS one")

const tableNamed = (url: Redacted.Redacted<string>) =>
  query<{ name: string | null }>(url, "SELECT to_regclass('kept_from_the_first')::text AS name")

// PostgreSQL runs as the postgres user only when brein runs as root; as any other user there is nothing to prove.
describe.skipIf(!isRoot)("EmbeddedPostgres as root, which runs it as the postgres user (runs only as root)", () => {
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
      yield* shelvedRemovedAtEnd(asked, checkout)

      const server = yield* startEmbeddedPostgres({ directory: asked, port: 0, binaries: { root: checkout } })
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
        yield* shelvedRemovedAtEnd(asked)
        const server = yield* startEmbeddedPostgres({ directory: asked, port: 0 })
        assert.isFalse(server.directory.startsWith(checkout), `the data must leave the private data folder, got ${server.directory}`)
        assert.deepStrictEqual(yield* selectOne(server.url), [{ one: 1 }])
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "keeps the database inside a data folder that exists and is open, as a container's volume mounted at it",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const app = yield* fs.makeTempDirectoryScoped({ prefix: "brein-open-" })
        yield* fs.chmod(app, 0o755)
        const volume = Path.join(app, ".brein")
        yield* fs.makeDirectory(volume, { mode: 0o755 })
        const asked = Path.join(volume, "pg")
        yield* shelvedRemovedAtEnd(asked)
        const server = yield* startEmbeddedPostgres({ directory: asked, port: 0 })
        assert.strictEqual(server.directory, asked, "the database stays in the data folder")
        assert.isFalse(yield* fs.exists(Path.join(asked, "relocated.json")))
        assert.deepStrictEqual(yield* selectOne(server.url), [{ one: 1 }])
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "a data folder deleted and made again gets a new database; the one left behind is named in the log",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const asked = yield* privateDataFolder
        const first = yield* Effect.scoped(
          startEmbeddedPostgres({ directory: asked, port: 0 }).pipe(
            Effect.tap((server) => query(server.url, "CREATE TABLE kept_from_the_first (id int)"))
          )
        )
        assert.deepStrictEqual(JSON.parse(yield* fs.readFileString(Path.join(asked, "relocated.json"))), { directory: first.directory })

        const found = yield* Effect.scoped(
          startEmbeddedPostgres({ directory: asked, port: 0 }).pipe(
            Effect.flatMap((again) => Effect.map(tableNamed(again.url), (rows) => ({ directory: again.directory, rows })))
          )
        )
        assert.deepStrictEqual(
          found,
          { directory: first.directory, rows: [{ name: "kept_from_the_first" }] },
          "the same data folder finds its database again"
        )

        yield* fs.remove(Path.dirname(asked), { recursive: true })
        const lines: Array<string> = []
        const second = yield* startEmbeddedPostgres({ directory: asked, port: 0 }).pipe(Effect.provide(logged(lines)))
        assert.notStrictEqual(second.directory, first.directory)
        assert.isTrue(second.owned)
        assert.deepStrictEqual(yield* tableNamed(second.url), [{ name: null }], "the new data folder's database starts empty")
        assert.isTrue(
          lines.some((line) => line.includes("is left on the shelf") && line.includes(first.directory)),
          `the log names the database left behind:\n${lines.join("\n")}`
        )
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )

  it.scopedLive(
    "a data folder from before markers keeps the database made for its path; a new one at that path does not",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const shipped = yield* shippedBinaries
        const asked = yield* privateDataFolder
        // A data folder as an earlier release left it: its keys and no marker; its database on the shelf under the path's digest.
        yield* fs.makeDirectory(Path.dirname(asked), { recursive: true })
        yield* fs.chmod(Path.dirname(asked), 0o700)
        yield* fs.writeFileString(Path.join(Path.dirname(asked), "secret.key"), "kept")
        const shelf = Path.dirname(Path.dirname((yield* place(shipped, asked)).directory))
        yield* fs.remove(Path.join(asked, "relocated.json"))
        const legacy = Path.join(shelf, `data-${digest(asked)}`, "pg")
        yield* fs.makeDirectory(legacy, { recursive: true })
        yield* fs.writeFileString(Path.join(legacy, "PG_VERSION"), "18\n")

        const kept = yield* place(shipped, asked)
        assert.strictEqual(kept.directory, legacy, "the data folder that was there keeps its database")
        assert.deepStrictEqual(JSON.parse(yield* fs.readFileString(Path.join(asked, "relocated.json"))), { directory: legacy })

        yield* fs.remove(Path.dirname(asked), { recursive: true })
        const lines: Array<string> = []
        const fresh = yield* place(shipped, asked).pipe(Effect.provide(logged(lines)))
        assert.notStrictEqual(fresh.directory, legacy, "a data folder made anew does not take the old database")
        assert.isTrue(lines.some((line) => line.includes("is left on the shelf") && line.includes(legacy)), lines.join("\n"))
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 60_000 }
  )

  it.scopedLive(
    "a database removed from the shelf stops the start, where a new empty one would pair the data folder's keys with nothing",
    () =>
      Effect.gen(function* () {
        const fs = yield* FileSystem.FileSystem
        const asked = yield* privateDataFolder
        const first = yield* Effect.scoped(
          startEmbeddedPostgres({ directory: asked, port: 0 }).pipe(
            Effect.tap((server) => query(server.url, "CREATE TABLE kept_from_the_first (id int)"))
          )
        )
        const marker = yield* fs.readFileString(Path.join(asked, "relocated.json"))
        // the shelf wiped (a reboot of a temporary shelf, a container made anew with only the data folder's volume)
        yield* fs.remove(Path.dirname(first.directory), { recursive: true })

        const failed = yield* Effect.flip(startEmbeddedPostgres({ directory: asked, port: 0 }))
        assert.strictEqual(failed._tag, "EmbeddedPostgresFailed")
        assert.include(failed.message, `says this data folder's database is kept in ${first.directory}, and it is gone`)
        assert.include(failed.message, `or delete the data folder ${Path.dirname(asked)} to start over`)
        assert.isFalse(yield* fs.exists(Path.dirname(first.directory)), "no database was made in its place")
        assert.strictEqual(yield* fs.readFileString(Path.join(asked, "relocated.json")), marker, "the marker is left as it was")

        // what the message says to do works
        yield* fs.remove(Path.dirname(asked), { recursive: true })
        const fresh = yield* startEmbeddedPostgres({ directory: asked, port: 0 })
        assert.notStrictEqual(fresh.directory, first.directory)
        assert.deepStrictEqual(yield* tableNamed(fresh.url), [{ name: null }])
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )

  it.scopedLive("a marker that does not name a folder stops the start saying what to do", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const asked = yield* privateDataFolder
      yield* fs.makeDirectory(asked, { recursive: true })
      yield* fs.writeFileString(Path.join(asked, "relocated.json"), "{\"directory\": 3}")
      const failed = yield* Effect.flip(place(yield* shippedBinaries, asked))
      assert.strictEqual(failed._tag, "EmbeddedPostgresFailed")
      assert.include(failed.message, "relocated.json does not say where this data folder's database is")
      assert.include(failed.message, "remove it to start with a new database")
    }).pipe(Effect.provide(NodeContext.layer)))

  // as root a marker's folder is handed to the postgres user: one planted in a data folder could otherwise take /etc
  it.scopedLive("a marker that names a folder brein does not make on its shelf stops the start, and nothing is done with that folder", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const asked = yield* privateDataFolder
      yield* fs.makeDirectory(asked, { recursive: true })
      const victim = yield* fs.makeTempDirectoryScoped({ prefix: "brein-victim-" })
      const before = yield* fs.stat(victim)
      const [shelf] = shelves
      for (
        const named of [
          victim,
          Path.join(victim, "pg"),
          `${shelf}/data-0123456789abcdef/../../..${victim}/pg`,
          `${shelf}/not-a-database/pg`,
          `${shelf}/data-0123456789abcdef/pgx`,
          "pg"
        ]
      ) {
        yield* fs.writeFileString(Path.join(asked, "relocated.json"), JSON.stringify({ directory: named }))
        const failed = yield* Effect.flip(place(yield* shippedBinaries, asked))
        assert.strictEqual(failed._tag, "EmbeddedPostgresFailed", named)
        assert.include(failed.message, `names ${JSON.stringify(named)}, which is no database folder brein makes`, named)
        assert.include(failed.message, "remove it to start with a new database", named)
      }
      const after = yield* fs.stat(victim)
      assert.deepStrictEqual([after.uid, after.gid, after.mode], [before.uid, before.gid, before.mode], "the folder is left as it was")
      assert.deepStrictEqual(yield* fs.readDirectory(victim), [], "nothing was made in it")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a database in the data folder that the postgres user cannot reach stops the start, not hidden by a new one", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      // a data folder made by a run as another user, then moved (or restored) into root's private home
      const asked = yield* privateDataFolder
      yield* fs.makeDirectory(asked, { recursive: true })
      yield* fs.writeFileString(Path.join(asked, "PG_VERSION"), "16\n")
      const failed = yield* Effect.flip(place(yield* shippedBinaries, asked))
      assert.strictEqual(failed._tag, "EmbeddedPostgresFailed")
      assert.include(failed.message, `${asked} holds a database the postgres user cannot reach`)
      assert.include(failed.message, "run brein as the user that owns it")
      assert.isFalse(yield* fs.exists(Path.join(asked, "relocated.json")), "no marker names a new database")
      const shelved = yield* Effect.forEach(shelves, (shelf) => fs.readDirectory(shelf).pipe(Effect.orElseSucceed(() => [])))
      assert.deepStrictEqual(shelved.flat().filter((entry) => entry.startsWith(`data-${digest(asked)}`)), [], "nothing made on the shelf")
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("EmbeddedPostgres as a user other than root", () => {
  it.scopedLive("a data folder whose path loops or is too long is said to be so, not a marker to restore", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const home = yield* fs.makeTempDirectoryScoped({ prefix: "brein-paths-" })
      yield* fs.symlink(Path.join(home, "b"), Path.join(home, "a"))
      yield* fs.symlink(Path.join(home, "a"), Path.join(home, "b"))
      const cases = [
        [Path.join(home, "a"), "its path loops through symbolic links"],
        [Path.join(home, "x".repeat(300)), "its path, or a name in it, is too long"]
      ] as const
      for (const [dataDir, says] of cases) {
        const failed = yield* Effect.flip(place(yield* shippedBinaries, Path.join(dataDir, "pg"), false))
        assert.strictEqual(failed._tag, "EmbeddedPostgresFailed")
        assert.include(failed.message, `the data folder ${dataDir} cannot be used: ${says}`)
        assert.notInclude(failed.message, "relocated.json")
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a data folder whose database runs as root keep on the shelf stops the start, saying so", () =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const asked = Path.join(yield* fs.makeTempDirectoryScoped({ prefix: "brein-marked-" }), ".brein", "pg")
      yield* fs.makeDirectory(asked, { recursive: true })
      const marker = JSON.stringify({ directory: "/var/lib/brein/data-0123456789abcdef-a1b2c3/pg" })
      yield* fs.writeFileString(Path.join(asked, "relocated.json"), marker)
      const failed = yield* Effect.flip(place(yield* shippedBinaries, asked, false))
      assert.strictEqual(failed._tag, "EmbeddedPostgresFailed")
      assert.include(failed.message, "is kept in /var/lib/brein/data-0123456789abcdef-a1b2c3/pg by brein run as root")
      assert.include(failed.message, "run brein as root with this data folder, or give it another --data-dir")
      assert.deepStrictEqual(yield* fs.readDirectory(asked), ["relocated.json"], "nothing was made in the data folder")
    }).pipe(Effect.provide(NodeContext.layer)))
})
