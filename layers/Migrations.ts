import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import { migrations } from "./migrations/index.ts"

const lockName = "brein.migrations"

// PgMigrator creates its bookkeeping table before taking its own lock, so two processes
// starting on a fresh database would race on CREATE TABLE; a session advisory lock on a
// reserved connection serializes the whole run.
const withMigrationLock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const connection = yield* sql.reserve
      yield* Effect.acquireRelease(
        connection.execute("SELECT pg_advisory_lock(hashtext($1))", [lockName], undefined),
        () => Effect.ignore(connection.execute("SELECT pg_advisory_unlock(hashtext($1))", [lockName], undefined))
      )
      return yield* effect
    })
  )

/**
 * A database whose encoding is not UTF8 (SQL_ASCII, as initdb makes where no locale is set) stores
 * brein's text but measures and compares it as bytes: case-insensitive names and similarity searches
 * go wrong for any letter outside ASCII. brein starts on it (its data is there), and says so.
 */
const warnUnlessUtf8 = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ readonly encoding: string }>`SELECT current_setting('server_encoding') AS encoding`
  if (row === undefined || row.encoding === "UTF8") return
  yield* Effect.logWarning(
    "the database's encoding is not UTF8: text outside ASCII is measured and compared as bytes (names that differ only in case, searches by similarity); move the data to a database created with ENCODING 'UTF8' (pg_dump, then restore)"
  ).pipe(Effect.annotateLogs("encoding", row.encoding))
}).pipe(Effect.withSpan("Migrations.checkEncoding"))

export const runMigrations = withMigrationLock(PgMigrator.run({ loader: PgMigrator.fromRecord(migrations) })).pipe(
  Effect.tap((applied) =>
    applied.length === 0
      ? Effect.void
      : Effect.log("migrations applied").pipe(
        Effect.annotateLogs("migrations", applied.map(([id, name]) => `${id}_${name}`).join(", "))
      )
  ),
  Effect.zipLeft(warnUnlessUtf8),
  Effect.withSpan("Migrations.run")
)

export const MigrationsLive = Layer.effectDiscard(runMigrations).pipe(Layer.provide(NodeContext.layer))
