import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The turns of Luna's Work Sessions folded from their logs, one row each (services/luna/SessionStates.ts):
 * a view reads the turns it shows and a fold rewrites only the turns its events touched, while the session's
 * snapshot (work_session_states) keeps what is small. A cache of the log, as the snapshot: a row may be
 * deleted at any time and is folded again from the log. The index finds a turn's events in the log.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE IF NOT EXISTS work_session_turns (
      session_id text NOT NULL REFERENCES work_sessions (id),
      turn_id text NOT NULL,
      version integer NOT NULL,
      ordinal integer NOT NULL,
      seq integer NOT NULL,
      view text NOT NULL,
      context text NOT NULL,
      PRIMARY KEY (session_id, turn_id)
    );
    CREATE INDEX IF NOT EXISTS work_session_turns_ordinal ON work_session_turns (session_id, ordinal);
    CREATE INDEX IF NOT EXISTS work_session_events_turn ON work_session_events (session_id, turn_id);
    DELETE FROM work_session_states;
  `))
