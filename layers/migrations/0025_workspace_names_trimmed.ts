import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Workspace names are trimmed when given (WorkspaceName), so a name stored with leading or trailing
 * spaces could no longer be named: it is trimmed, unless another workspace already has the trimmed
 * name, in which case it keeps its name as it was (reachable by its keys, listed by
 * `brein workspaces list`).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    UPDATE workspaces w SET name = trimmed.name
    FROM (
      SELECT DISTINCT ON (regexp_replace(name, '^\\s+|\\s+$', '', 'g')) id, regexp_replace(name, '^\\s+|\\s+$', '', 'g') AS name
      FROM workspaces
      WHERE name <> regexp_replace(name, '^\\s+|\\s+$', '', 'g')
      ORDER BY regexp_replace(name, '^\\s+|\\s+$', '', 'g'), created_at, id
    ) trimmed
    WHERE w.id = trimmed.id AND trimmed.name <> ''
      AND NOT EXISTS (SELECT 1 FROM workspaces other WHERE other.name = trimmed.name);
  `))
