import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Effect, Record as Rec, type Redacted } from "effect"
import { migrations } from "../../layers/migrations/index.ts"
import { freshDatabase } from "./TestDatabase.ts"

type Migrations = Readonly<Record<string, (typeof migrations)[keyof typeof migrations]>>

/**
 * The database of `url`, migrated as its role up to (not including) the migration `id` ("0026" or
 * "0026_service_roles"), as a version that held only the migrations before it left it: `sql` on it, and
 * `all` to run the rest.
 */
export const migratedBefore = (url: Redacted.Redacted<string>, id: string) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.make({ url })
    const migrate = (record: Migrations) =>
      PgMigrator.run({ loader: PgMigrator.fromRecord(record) }).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provide(NodeContext.layer)
      )
    yield* migrate(Rec.filter(migrations, (_, migration) => migration < id))
    return { sql, all: migrate(migrations) }
  })

/**
 * A fresh database for a migration's test, migrated up to (not including) the migration `id`: `sql` to
 * write the rows an earlier schema held, then `all` to run the rest.
 */
export const databaseBefore = (id: string) => Effect.flatMap(freshDatabase, (url) => migratedBefore(url, id))
