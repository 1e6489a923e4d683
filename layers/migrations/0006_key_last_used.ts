import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
    CREATE INDEX api_keys_prefix ON api_keys (prefix);
  `))
