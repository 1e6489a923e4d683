import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A workspace's sequence names are unique ignoring case ("Q4" and "q4" are one name). Names that
 * already differ only in case keep the oldest as it is and give the others a name column of their
 * own (the id appended); their definition and digests stay as they are, since an authorization and
 * a preflight are bound to the content digest. Editing such a draft is a duplicate_name conflict
 * until it gets a name of its own.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    WITH ranked AS (
      SELECT id, row_number() OVER (PARTITION BY workspace_id, lower(name) ORDER BY created_at, id) AS n FROM sequences
    )
    UPDATE sequences s SET name = s.name || ' (' || s.id || ')' FROM ranked r WHERE r.id = s.id AND r.n > 1;

    CREATE UNIQUE INDEX sequences_workspace_name_ignoring_case ON sequences (workspace_id, lower(name));
    ALTER TABLE sequences DROP CONSTRAINT IF EXISTS sequences_workspace_id_name_key;
  `))
