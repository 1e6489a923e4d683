import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE workspaces (
      id text PRIMARY KEY,
      name text NOT NULL UNIQUE,
      plan text NOT NULL CHECK (plan IN ('free', 'paid')),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      prefix text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );
    CREATE TABLE connections (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      connector text NOT NULL,
      institution text,
      state text NOT NULL DEFAULT 'pendiente',
      state_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX connections_workspace ON connections (workspace_id);
    CREATE TABLE audit_log (
      chain text NOT NULL,
      seq bigint NOT NULL,
      request_id text NOT NULL,
      at timestamptz NOT NULL,
      workspace_id text NOT NULL,
      principal text NOT NULL,
      surface text NOT NULL,
      tool_id text NOT NULL,
      plane text NOT NULL,
      connection_id text,
      input_digest text NOT NULL,
      output_digest text,
      outcome text NOT NULL,
      error_tag text,
      latency_ms double precision NOT NULL,
      cost text NOT NULL,
      prev_digest text NOT NULL,
      digest text NOT NULL,
      PRIMARY KEY (chain, seq)
    );
    CREATE INDEX audit_log_request ON audit_log (request_id);
  `))
