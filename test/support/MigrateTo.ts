import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Effect, Record as Rec } from "effect"
import { migrations } from "../../layers/migrations/index.ts"
import { freshDatabase } from "./TestDatabase.ts"

/**
 * A fresh database for a migration's test: `sql` to write the rows an earlier schema held, `before`
 * to migrate it up to (not including) the migration `id`, then `all` to run the rest.
 */
export const databaseBefore = (id: string) =>
  Effect.gen(function* () {
    const sql = yield* PgClient.make({ url: yield* freshDatabase })
    const migrate = (record: Readonly<Record<string, (typeof migrations)[keyof typeof migrations]>>) =>
      PgMigrator.run({ loader: PgMigrator.fromRecord(record) }).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provide(NodeContext.layer)
      )
    yield* migrate(Rec.filter(migrations, (_, migration) => migration < id))
    return { sql, all: migrate(migrations) }
  })
