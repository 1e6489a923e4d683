import { Reactivity } from "@effect/experimental"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, type Redacted } from "effect"
import { startEmbeddedPostgres } from "../../layers/EmbeddedPostgres.ts"
import { runMigrations } from "../../layers/Migrations.ts"
import { freshDatabase, freshDatabaseWith } from "../support/TestDatabase.ts"
import { RecordedLogs, RecordLogs, TestLogging } from "../support/TestLogging.ts"

/** The environment of a container or a service unit: no locale at all (LC_ALL=C, as if LANG were unset). */
const withoutLocale = Effect.acquireRelease(
  Effect.sync(() => {
    const before = { LANG: process.env["LANG"], LC_ALL: process.env["LC_ALL"], LC_CTYPE: process.env["LC_CTYPE"] }
    delete process.env["LANG"]
    delete process.env["LC_CTYPE"]
    process.env["LC_ALL"] = "C"
    return before
  }),
  (before) =>
    Effect.sync(() => {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    })
)

interface Text {
  readonly encoding: string
  readonly folded: string
  readonly letters: number
  readonly same: boolean
}

const textOf = (url: Redacted.Redacted<string>) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url }), (sql) =>
      sql.unsafe<Text>(`SELECT current_setting('server_encoding') AS encoding, lower('ÑANDÚ ÓSCAR') AS folded,
      length('Ñandú') AS letters, lower('Ñandú') = lower('ñANDÚ') AS same`))
  ).pipe(Effect.provide(Reactivity.layer))

/** The warnings a run of the migrations on the database at `url` logged. */
const migrationWarnings = (url: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
    yield* runMigrations
    return yield* (yield* RecordedLogs).lines
  }).pipe(
    Effect.provide(Layer.mergeAll(PgClient.layer({ url }), RecordLogs, TestLogging, NodeContext.layer, Reactivity.layer)),
    Effect.scoped
  )

describe("The database's text", () => {
  it.scopedLive(
    "an embedded cluster initialised where no locale is set holds UTF-8 and folds case by Unicode",
    () =>
      Effect.gen(function* () {
        yield* withoutLocale
        const fs = yield* FileSystem.FileSystem
        const directory = yield* fs.makeTempDirectoryScoped({ prefix: "brein-encoding-" })
        yield* fs.chmod(directory, 0o755)
        const server = yield* startEmbeddedPostgres({ directory: `${directory}/pg`, port: 0 })
        const [text] = yield* textOf(server.url)
        assert.deepStrictEqual(text, { encoding: "UTF8", folded: "ñandú óscar", letters: 5, same: true })
      }).pipe(Effect.provide(NodeContext.layer)),
    { timeout: 120_000 }
  )

  it.scopedLive("migrating a database whose encoding is not UTF8 warns, and names the encoding", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabaseWith("ENCODING 'SQL_ASCII' LOCALE_PROVIDER libc LOCALE 'C' TEMPLATE template0")
      const lines = yield* migrationWarnings(url)
      const warned = lines.filter((line) => line.includes("encoding is not UTF8"))
      assert.strictEqual(warned.length, 1, lines.join("\n"))
      assert.include(warned[0], "encoding=SQL_ASCII")
      assert.include(warned[0], "level=WARN")
      // the migrations ran all the same: brein starts on it
      const tables = yield* Effect.scoped(
        Effect.flatMap(PgClient.make({ url }), (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`)
      ).pipe(Effect.provide(Reactivity.layer))
      assert.isAbove(tables[0]?.n ?? 0, 0)
    }), { timeout: 120_000 })

  it.scopedLive(
    "migrating a UTF8 database whose lower() keeps Ñ as it is (ctype C) warns of the case of names",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabaseWith("ENCODING 'UTF8' LOCALE_PROVIDER libc LOCALE 'C' TEMPLATE template0")
        const lines = yield* migrationWarnings(url)
        const warned = lines.filter((line) => line.includes("lower()"))
        assert.strictEqual(warned.length, 1, lines.join("\n"))
        assert.include(warned[0], "ctype=C")
        assert.deepStrictEqual(lines.filter((line) => line.includes("encoding is not UTF8")), [])
      }),
    { timeout: 120_000 }
  )

  it.scopedLive("migrating a database of the test server (UTF-8 that folds case) says nothing of its text", () =>
    Effect.gen(function* () {
      const lines = yield* migrationWarnings(yield* freshDatabase)
      assert.deepStrictEqual(lines.filter((line) => line.includes("encoding") || line.includes("lower()")), [])
    }), { timeout: 120_000 })
})
