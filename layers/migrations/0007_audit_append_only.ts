import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The audit log and its signed checkpoints only grow: the database itself refuses UPDATE, DELETE
 * and TRUNCATE, whatever role the service connects as (only a superuser or the tables' owner
 * can switch the triggers off, and the checkpoints then tell).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE audit_checkpoint (
      seq bigint PRIMARY KEY,
      at timestamptz NOT NULL,
      heads jsonb NOT NULL,
      prev_signature text NOT NULL,
      signature text NOT NULL
    );
    CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
    END
    $$;
    CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_append_only();
    CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
    CREATE TRIGGER audit_checkpoint_append_only BEFORE UPDATE OR DELETE ON audit_checkpoint
      FOR EACH ROW EXECUTE FUNCTION audit_append_only();
    CREATE TRIGGER audit_checkpoint_no_truncate BEFORE TRUNCATE ON audit_checkpoint
      FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
  `))
