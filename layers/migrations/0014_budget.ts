import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The money machinery: a credits balance per workspace beside an append-only ledger (every change of
 * the balance is a ledger row, in the same transaction; the balance never goes below zero), quotes
 * (single use, bound to their input, stored by the hash of their token), idempotency keys with the
 * result they answered (as the text it was sent, so a replay answers the same bytes), the reads of the hourly ceiling, and what a workspace already owns (revealed
 * contacts, enriched companies: asked again, they cost nothing).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE credit_accounts (
      workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
      balance integer NOT NULL CHECK (balance >= 0),
      opened_at timestamptz NOT NULL
    );
    CREATE TABLE credit_ledger (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      workspace_id text NOT NULL,
      at timestamptz NOT NULL,
      kind text NOT NULL CHECK (kind IN ('opening', 'grant', 'charge')),
      delta integer NOT NULL,
      balance_after integer NOT NULL CHECK (balance_after >= 0),
      reason text NOT NULL,
      tool_id text,
      quote_id text,
      request_id text
    );
    CREATE INDEX credit_ledger_workspace ON credit_ledger (workspace_id, id);
    CREATE TRIGGER credit_ledger_append_only BEFORE UPDATE OR DELETE ON credit_ledger
      FOR EACH ROW EXECUTE FUNCTION audit_append_only();
    CREATE TRIGGER credit_ledger_no_truncate BEFORE TRUNCATE ON credit_ledger
      FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();

    CREATE TABLE quotes (
      id text PRIMARY KEY,
      token_hash text NOT NULL UNIQUE,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      tool_id text NOT NULL,
      input_digest text NOT NULL,
      items jsonb NOT NULL,
      unit text NOT NULL,
      unit_price integer NOT NULL,
      total integer NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      used_by text
    );

    CREATE TABLE idempotency_keys (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      tool_id text NOT NULL,
      key text NOT NULL,
      input_digest text NOT NULL,
      request_id text NOT NULL,
      answer text,
      cost text,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, tool_id, key)
    );

    CREATE TABLE read_usage (
      workspace_id text NOT NULL,
      at timestamptz NOT NULL,
      request_id text NOT NULL
    );
    CREATE INDEX read_usage_window ON read_usage (workspace_id, at);

    -- One workspace's reads are counted and taken under its own lock: exact under any concurrency. Taken
    -- in a statement of its own (p_own_commit), a read is not worth a disk flush: its commit does not wait
    -- for one (a crash forgets at most the last fraction of a second of reads, in the caller's favour).
    CREATE FUNCTION brein_take_read(p_workspace text, p_at timestamptz, p_window interval, p_limit integer, p_request text,
      p_own_commit boolean)
    RETURNS TABLE (allowed boolean, used integer, oldest timestamptz) LANGUAGE plpgsql AS $$
    DECLARE
      n integer;
      first timestamptz;
    BEGIN
      IF p_own_commit THEN
        PERFORM set_config('synchronous_commit', 'off', true);
      END IF;
      PERFORM pg_advisory_xact_lock(hashtextextended('brein.reads:' || p_workspace, 0));
      DELETE FROM read_usage r WHERE r.workspace_id = p_workspace AND r.at <= p_at - p_window;
      SELECT count(*)::integer, min(r.at) INTO n, first FROM read_usage r WHERE r.workspace_id = p_workspace AND r.at > p_at - p_window;
      IF n >= p_limit THEN
        RETURN QUERY SELECT false, n, first;
        RETURN;
      END IF;
      INSERT INTO read_usage (workspace_id, at, request_id) VALUES (p_workspace, p_at, p_request);
      RETURN QUERY SELECT true, n + 1, coalesce(first, p_at);
    END
    $$;

    CREATE TABLE revealed_contacts (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      person_id text NOT NULL,
      revealed_at timestamptz NOT NULL,
      request_id text NOT NULL,
      PRIMARY KEY (workspace_id, person_id)
    );
    CREATE TABLE enriched_companies (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      company_id text NOT NULL,
      enriched_at timestamptz NOT NULL,
      request_id text NOT NULL,
      PRIMARY KEY (workspace_id, company_id)
    );
  `))
