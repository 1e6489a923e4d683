import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Luna's Work Sessions. A session belongs to one workspace and one principal (a signed-in user or an
 * API key). Its event log is the authority (the chat view is a projection of it) and is append-only,
 * enforced by the database: an event can be neither updated nor deleted, and the table not truncated.
 * `stage` on the session row is the projection's cache of the latest stage.changed event.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE work_sessions (
      id text PRIMARY KEY,
      workspace_id text NOT NULL,
      owner text NOT NULL,
      title text,
      stage text NOT NULL,
      created_at timestamptz NOT NULL
    );
    CREATE INDEX work_sessions_owner ON work_sessions (workspace_id, owner, created_at DESC);
    CREATE TABLE work_session_events (
      session_id text NOT NULL REFERENCES work_sessions (id),
      seq integer NOT NULL,
      turn_id text NOT NULL,
      parent_turn_id text,
      variant integer NOT NULL,
      type text NOT NULL,
      body text NOT NULL,
      at timestamptz NOT NULL,
      PRIMARY KEY (session_id, seq)
    );
    CREATE TRIGGER work_session_events_append_only BEFORE UPDATE OR DELETE ON work_session_events
      FOR EACH ROW EXECUTE FUNCTION audit_append_only();
    CREATE TRIGGER work_session_events_no_truncate BEFORE TRUNCATE ON work_session_events
      FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
  `))
