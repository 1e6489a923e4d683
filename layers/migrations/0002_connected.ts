import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    ALTER TABLE connections
      ADD COLUMN credentials text NOT NULL DEFAULT '',
      ADD COLUMN credential_key text NOT NULL DEFAULT '';
    CREATE INDEX connections_session_key ON connections (credential_key);

    CREATE TABLE sync_jobs (
      id text PRIMARY KEY,
      connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      workspace_id text NOT NULL,
      connector text NOT NULL,
      scope_key text NOT NULL,
      scope jsonb NOT NULL,
      state text NOT NULL CHECK (state IN ('en_cola', 'sincronizando', 'sincronizada', 'parcial', 'error')),
      attempts integer NOT NULL DEFAULT 0,
      max_attempts integer NOT NULL DEFAULT 3,
      run_after timestamptz NOT NULL DEFAULT now(),
      progress jsonb NOT NULL DEFAULT '{"done": 0, "total": 0}',
      counts jsonb NOT NULL DEFAULT '{}',
      error_reason text,
      error_message text,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      login_ms integer
    );
    CREATE INDEX sync_jobs_pending ON sync_jobs (run_after) WHERE state IN ('en_cola', 'sincronizando');
    CREATE INDEX sync_jobs_connection ON sync_jobs (connection_id, created_at DESC);
    CREATE UNIQUE INDEX sync_jobs_one_open_per_scope ON sync_jobs (connection_id, scope_key)
      WHERE state IN ('en_cola', 'sincronizando');

    CREATE TABLE sync_coverage (
      connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      scope_key text NOT NULL,
      scope jsonb NOT NULL,
      synced_at timestamptz NOT NULL,
      completo boolean NOT NULL,
      job_id text NOT NULL,
      PRIMARY KEY (connection_id, scope_key)
    );

    CREATE TABLE cache_history (
      connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      resource text NOT NULL,
      natural_key text NOT NULL,
      version integer NOT NULL,
      snapshot jsonb NOT NULL,
      valid_from timestamptz NOT NULL,
      valid_to timestamptz NOT NULL,
      job_id text NOT NULL,
      PRIMARY KEY (connection_id, resource, natural_key, version)
    );

    CREATE TABLE rcv_documents (
      id bigserial PRIMARY KEY,
      connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      periodo text NOT NULL,
      perspectiva text NOT NULL,
      natural_key text NOT NULL,
      tipo_dte integer NOT NULL,
      folio bigint NOT NULL,
      rut_emisor text NOT NULL,
      rut_receptor text NOT NULL,
      razon_social text NOT NULL,
      fecha_emision date NOT NULL,
      monto_exento bigint NOT NULL,
      monto_neto bigint NOT NULL,
      monto_iva bigint NOT NULL,
      monto_total bigint NOT NULL,
      estado text NOT NULL,
      tipo_doc_ref integer,
      folio_ref bigint,
      content_hash text NOT NULL,
      version integer NOT NULL DEFAULT 1,
      synced_at timestamptz NOT NULL,
      UNIQUE (connection_id, natural_key)
    );
    CREATE INDEX rcv_documents_page ON rcv_documents (connection_id, periodo, perspectiva, id);

    CREATE TABLE bank_accounts (
      connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      account_id text NOT NULL,
      type text NOT NULL,
      name text NOT NULL,
      official_name text NOT NULL,
      number text NOT NULL,
      currency text NOT NULL,
      balance_available bigint NOT NULL,
      balance_current bigint NOT NULL,
      balance_limit bigint,
      content_hash text NOT NULL,
      version integer NOT NULL DEFAULT 1,
      synced_at timestamptz NOT NULL,
      PRIMARY KEY (connection_id, account_id)
    );

    CREATE TABLE bank_movements (
      id bigserial PRIMARY KEY,
      connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      account_id text NOT NULL,
      movement_id text NOT NULL,
      periodo text NOT NULL,
      post_date date NOT NULL,
      transaction_date date NOT NULL,
      amount bigint NOT NULL,
      balance bigint NOT NULL,
      currency text NOT NULL,
      description text NOT NULL,
      comment text,
      pending boolean NOT NULL,
      reference_id text NOT NULL,
      type text NOT NULL,
      content_hash text NOT NULL,
      version integer NOT NULL DEFAULT 1,
      synced_at timestamptz NOT NULL,
      UNIQUE (connection_id, movement_id)
    );
    CREATE INDEX bank_movements_page ON bank_movements (connection_id, account_id, post_date, id);
  `))
