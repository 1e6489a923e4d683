import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

const MOVE = "(pg_dump, then restore)"

const decodeText = Schema.decodeUnknown(
  Schema.Array(Schema.Struct({ encoding: Schema.String, ctype: Schema.String, folds: Schema.Boolean }))
)

/**
 * What brein needs of a database's text, checked on the database itself: that it is UTF-8, and that
 * `lower()` folds letters outside ASCII (`Ñ` to `ñ`; sequence names are unique ignoring case by it).
 * A database without either still serves (its data is there): each lack is logged as a warning that
 * says what goes wrong and how to move the data. The embedded cluster has both (PostgresProcess).
 */
export const checkDatabaseText = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql`
    SELECT current_setting('server_encoding') AS encoding, d.datctype::text AS ctype, lower('ÑÓ') = 'ñó' AS folds
    FROM pg_database d WHERE d.datname = current_database()`.pipe(Effect.flatMap(decodeText))
  if (row === undefined) return
  if (row.encoding !== "UTF8") {
    return yield* Effect.logWarning(
      `the database's encoding is not UTF8: text outside ASCII is measured and compared as bytes (names that differ only in case, searches by similarity); move the data to a database created with ENCODING 'UTF8' ${MOVE}`
    ).pipe(Effect.annotateLogs("encoding", row.encoding))
  }
  if (!row.folds) {
    yield* Effect.logWarning(
      `the database's lower() leaves letters outside ASCII as they are: sequence names that differ only in their case (Ñuñoa, ÑUÑOA) are taken as two; move the data to a database created with a UTF-8 locale, such as LOCALE 'C.UTF-8' ${MOVE}`
    ).pipe(Effect.annotateLogs("ctype", row.ctype))
  }
}).pipe(Effect.withSpan("Database.checkText"))
