import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Counts a connection's credentials: each replacement adds one. A sync job's end sets its connection's
 * state only while the count is still the one its batch was claimed under, so a job that logged in with
 * replaced credentials never reports the new ones as working.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    ALTER TABLE connections ADD COLUMN IF NOT EXISTS credentials_generation integer NOT NULL DEFAULT 1;
  `))
