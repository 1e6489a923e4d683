import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import { checkDatabaseText } from "./DatabaseText.ts"
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

export const runMigrations = withMigrationLock(PgMigrator.run({ loader: PgMigrator.fromRecord(migrations) })).pipe(
  Effect.tap((applied) =>
    applied.length === 0
      ? Effect.void
      : Effect.log("migrations applied").pipe(
        Effect.annotateLogs("migrations", applied.map(([id, name]) => `${id}_${name}`).join(", "))
      )
  ),
  Effect.zipLeft(checkDatabaseText),
  Effect.withSpan("Migrations.run")
)

export const MigrationsLive = Layer.effectDiscard(runMigrations).pipe(Layer.provide(NodeContext.layer))
