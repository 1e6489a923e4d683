import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The authorization ledger of sequences: who (a signed-in user, never a key) activated which version
 * of a sequence, with which content and recipients (their digests and count), on which preflight, and
 * when. Append-only, enforced by the database: a row can be neither updated nor deleted, and the table
 * cannot be truncated.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE sequence_authorizations (
      id text PRIMARY KEY,
      workspace_id text NOT NULL,
      sequence_id text NOT NULL,
      sequence_version integer NOT NULL,
      content_digest text NOT NULL,
      recipients_digest text NOT NULL,
      recipients integer NOT NULL,
      preflight_id text NOT NULL,
      user_id text NOT NULL,
      user_email text NOT NULL,
      session_id text NOT NULL,
      decided_at timestamptz NOT NULL,
      UNIQUE (sequence_id, sequence_version)
    );
    CREATE INDEX sequence_authorizations_workspace ON sequence_authorizations (workspace_id, decided_at);
    CREATE TRIGGER sequence_authorizations_append_only BEFORE UPDATE OR DELETE ON sequence_authorizations
      FOR EACH ROW EXECUTE FUNCTION audit_append_only();
    CREATE TRIGGER sequence_authorizations_no_truncate BEFORE TRUNCATE ON sequence_authorizations
      FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
  `))
