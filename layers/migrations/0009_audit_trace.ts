import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Each audit row names the trace of its call; rows written before are left without one (adding a column rewrites no row). */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    ALTER TABLE audit_log ADD COLUMN trace_id text;
  `))
