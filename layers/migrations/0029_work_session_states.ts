import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Snapshots of Luna's Work Sessions folded from their logs (services/luna/SessionStates.ts), so that a view
 * or a turn reads the snapshot and the events after it, not the whole log. A cache of the log, never the
 * authority: a row may be deleted at any time and is folded again from the log.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE IF NOT EXISTS work_session_states (
      session_id text PRIMARY KEY REFERENCES work_sessions (id),
      version integer NOT NULL,
      seq integer NOT NULL,
      state text NOT NULL
    );
  `))
