import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE session_leases (
      key text PRIMARY KEY,
      holder text NOT NULL,
      expires_at timestamptz NOT NULL
    );
  `))
