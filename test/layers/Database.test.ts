import { Reactivity } from "@effect/experimental"
import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it, layer } from "@effect/vitest"
import type { Redacted } from "effect"
import { Deferred, Effect, Exit, Layer, Scope } from "effect"
import { databaseFromUrl } from "../../layers/Database.ts"
import { startEmbeddedPostgres } from "../../layers/EmbeddedPostgres.ts"
import { runMigrations } from "../../layers/Migrations.ts"
import { migrations } from "../../layers/migrations/index.ts"
import { isPostgresProcess } from "../../layers/PostgresProcess.ts"
import { freshDatabase, TestDatabase } from "../support/TestDatabase.ts"

const appliedMigrations = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ count: number }>`SELECT count(*)::int AS count FROM effect_sql_migrations`
).pipe(Effect.map((rows) => rows[0]?.count))

layer(TestDatabase)("Database", (it) => {
  it.effect("records every migration once and re-running them is a no-op", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* appliedMigrations, Object.keys(migrations).length)
      const again = yield* runMigrations.pipe(Effect.provide(NodeContext.layer))
      assert.deepStrictEqual(again, [])
      assert.strictEqual(yield* appliedMigrations, Object.keys(migrations).length)
    }))

  it.effect("maps camelCase queries to snake_case columns and back", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE naming_probe (id int primary key, created_by text not null)`
      yield* sql`INSERT INTO naming_probe ${sql.insert({ id: 1, createdBy: "lead" })}`
      const rows = yield* sql<{ createdBy: string }>`SELECT created_by FROM naming_probe`
      assert.deepStrictEqual(rows, [{ createdBy: "lead" }])
    }))

  it.effect("a rolled back transaction leaves nothing behind", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE rollback_probe (id int primary key)`
      const outcome = yield* sql.withTransaction(
        Effect.zipRight(sql`INSERT INTO rollback_probe VALUES (1)`, Effect.fail("abort" as const))
      ).pipe(Effect.flip)
      assert.strictEqual(outcome, "abort")
      const rows = yield* sql<{ count: number }>`SELECT count(*)::int AS count FROM rollback_probe`
      assert.strictEqual(rows[0]?.count, 0)
    }))

  it.effect("FOR UPDATE SKIP LOCKED hands each row to one transaction", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE job_probe (id int primary key)`
      yield* sql`INSERT INTO job_probe VALUES (1), (2)`
      const claim = sql<{ id: number }>`SELECT id FROM job_probe ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`
      const firstHolds = yield* Deferred.make<void>()
      const secondDone = yield* Deferred.make<void>()
      const [first, second] = yield* Effect.all([
        sql.withTransaction(
          claim.pipe(Effect.tap(() => Deferred.succeed(firstHolds, undefined)), Effect.zipLeft(Deferred.await(secondDone)))
        ),
        Deferred.await(firstHolds).pipe(
          Effect.zipRight(sql.withTransaction(claim)),
          Effect.ensuring(Deferred.succeed(secondDone, undefined))
        )
      ], { concurrency: 2 })
      assert.deepStrictEqual([first, second], [[{ id: 1 }], [{ id: 2 }]])
    }))
})

describe("Migrations", () => {
  it.scopedLive("two processes migrating a fresh database at once both succeed", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const both = Effect.all([Layer.build(databaseFromUrl(url)), Layer.build(databaseFromUrl(url))], {
        concurrency: 2
      })
      const [context] = yield* both
      const count = yield* appliedMigrations.pipe(Effect.provide(context))
      assert.strictEqual(count, Object.keys(migrations).length)
    }))
})

const countRows = (url: Redacted.Redacted<string>) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url }), (sql) => sql<{ count: number }>`SELECT count(*)::int AS count FROM kept`)
  ).pipe(Effect.map((rows) => rows[0]?.count), Effect.provide(Reactivity.layer))

const execute = (url: Redacted.Redacted<string>, statement: string) =>
  Effect.scoped(Effect.flatMap(PgClient.make({ url }), (sql) => sql.unsafe(statement))).pipe(
    Effect.provide(Reactivity.layer)
  )

/** A temporary folder for a cluster (`directory`), open so that as root the postgres user reaches it. */
const clusterFolder = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "brein-embedded-" })
  yield* fs.chmod(root, 0o755)
  return { fs, root, directory: `${root}/pg` }
})

describe("EmbeddedPostgres", () => {
  it.scopedLive("reuses a running cluster and keeps its data across restarts", () =>
    Effect.gen(function* () {
      const { directory, fs } = yield* clusterFolder

      yield* Effect.scoped(Effect.gen(function* () {
        const first = yield* startEmbeddedPostgres({ directory, port: 0 })
        assert.isTrue(first.owned)
        yield* execute(first.url, "CREATE TABLE kept (id int)")
        yield* execute(first.url, "INSERT INTO kept VALUES (1)")

        const second = yield* Effect.scoped(startEmbeddedPostgres({ directory, port: 0 }))
        assert.isFalse(second.owned)
        assert.strictEqual(second.port, first.port)
        assert.strictEqual(yield* countRows(first.url), 1, "closing the borrower must not stop the owner's server")
      }))
      assert.isFalse(yield* fs.exists(`${directory}/postmaster.pid`))

      const restarted = yield* startEmbeddedPostgres({ directory, port: 0 })
      assert.isTrue(restarted.owned)
      assert.strictEqual(yield* countRows(restarted.url), 1)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("the process that started the cluster leaving first does not stop it under another; the last to leave stops it", () =>
    Effect.gen(function* () {
      const { directory, fs } = yield* clusterFolder
      const starter = yield* Scope.make()
      const borrower = yield* Scope.make()

      const first = yield* startEmbeddedPostgres({ directory, port: 0 }).pipe(Scope.extend(starter))
      assert.isTrue(first.owned)
      const second = yield* startEmbeddedPostgres({ directory, port: 0 }).pipe(Scope.extend(borrower))
      assert.isFalse(second.owned)
      yield* execute(second.url, "CREATE TABLE kept (id int)")
      const postmaster = yield* fs.readFileString(`${directory}/postmaster.pid`)

      yield* Scope.close(starter, Exit.void)
      // the borrower's connections still work, on the same postmaster
      yield* execute(second.url, "INSERT INTO kept VALUES (1)")
      assert.strictEqual(yield* countRows(second.url), 1)
      assert.strictEqual(yield* fs.readFileString(`${directory}/postmaster.pid`), postmaster)

      yield* Scope.close(borrower, Exit.void)
      assert.isFalse(yield* fs.exists(`${directory}/postmaster.pid`), "the last process to leave stops the cluster")
      const pid = Number.parseInt(postmaster.split("\n")[0] ?? "", 10)
      assert.isFalse(yield* isPostgresProcess(pid), "its postmaster is gone")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("two processes starting on a new data folder at once: one initialises and starts the cluster, the other uses it", () =>
    Effect.gen(function* () {
      const { directory, fs } = yield* clusterFolder
      const [a, b] = yield* Effect.all([startEmbeddedPostgres({ directory, port: 0 }), startEmbeddedPostgres({ directory, port: 0 })], {
        concurrency: 2
      })
      assert.deepStrictEqual([a.owned, b.owned].sort(), [false, true])
      assert.strictEqual(a.port, b.port)
      yield* execute(a.url, "CREATE TABLE kept (id int)")
      assert.strictEqual(yield* countRows(b.url), 0)
      assert.isFalse(yield* fs.exists(`${directory}.start.lock`), "the start lock is given back")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("an initdb that fails leaves no half-made cluster where the next start would look for one", () =>
    Effect.gen(function* () {
      const { fs, root } = yield* clusterFolder
      const directory = `${root}/data/pg`
      // open, so that as root the database is kept in it (the postgres user can reach it)
      yield* fs.makeDirectory(`${root}/data`, { mode: 0o755 })
      // a PostgreSQL build whose initdb writes into its folder, then fails
      const broken = `${root}/broken`
      yield* fs.makeDirectory(`${broken}/bin`, { recursive: true })
      yield* fs.writeFileString(
        `${broken}/bin/initdb`,
        "#!/bin/sh\nfor a; do case $a in --pgdata=*) d=${a#--pgdata=};; esac; done\n" +
          "touch \"$d/PG_VERSION\"\necho 'initdb: error: the disk is full' >&2\nexit 1\n"
      )
      yield* fs.chmod(`${broken}/bin/initdb`, 0o755)
      const error = yield* Effect.flip(Effect.scoped(startEmbeddedPostgres({ directory, port: 0, binaries: { root: broken } })))
      assert.include(error.message, "the disk is full")
      assert.deepStrictEqual(yield* fs.readDirectory(`${root}/data`), [], "nothing of the failed initdb is left")

      const server = yield* startEmbeddedPostgres({ directory, port: 0 })
      assert.isTrue(server.owned)
      yield* execute(server.url, "CREATE TABLE kept (id int)")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a start lock left by a process that died is taken over, also one naming this process's pid (a container restarted)", () =>
    Effect.forEach([2 ** 22 + 1, process.pid], (holder) =>
      Effect.scoped(Effect.gen(function* () {
        const { directory, fs } = yield* clusterFolder
        // 2^22 + 1: a pid no process has (pid_max is at most 2^22)
        yield* fs.writeFileString(`${directory}.start.lock`, `${holder}\n`)
        const server = yield* startEmbeddedPostgres({ directory, port: 0 })
        assert.isTrue(server.owned)
        assert.isFalse(yield* fs.exists(`${directory}.start.lock`))
      }))).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a cluster that a leaving process stops as another arrives is started again for the newcomer", () =>
    Effect.gen(function* () {
      const { directory } = yield* clusterFolder
      const leaving = yield* Scope.make()
      const first = yield* startEmbeddedPostgres({ directory, port: 0 }).pipe(Scope.extend(leaving))
      yield* execute(first.url, "CREATE TABLE kept (id int)")
      // the newcomer starts while the last process leaves (and stops the cluster): it gets a working cluster
      const [, arrived] = yield* Effect.all([Scope.close(leaving, Exit.void), startEmbeddedPostgres({ directory, port: 0 })], {
        concurrency: 2
      })
      assert.strictEqual(yield* countRows(arrived.url), 0)
    }).pipe(Effect.provide(NodeContext.layer)))
})
