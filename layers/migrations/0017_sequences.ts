import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Secuencias: a workspace's sender mailboxes (grants at the mail provider, with their domain
 * authentication and sending limits), its email sequences (a draft is edited; every change of content
 * or recipients bumps `version`), their recipients (suppressed ones stay, with the reason, so they are
 * reported rather than dropped), the suppression list, and every preflight run (bound to the version
 * and the digests of content and recipients it checked). JSON documents are stored as text: they are
 * answered back as they were written.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE mailboxes (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      email text NOT NULL,
      display_name text NOT NULL,
      grant_id text NOT NULL UNIQUE,
      spf boolean NOT NULL,
      dkim boolean NOT NULL,
      dmarc boolean NOT NULL,
      daily_cap integer NOT NULL CHECK (daily_cap BETWEEN 1 AND 700),
      min_spacing_seconds integer NOT NULL CHECK (min_spacing_seconds >= 30),
      created_at timestamptz NOT NULL,
      UNIQUE (workspace_id, email)
    );

    CREATE TABLE sequences (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      name text NOT NULL,
      status text NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'completed')),
      version integer NOT NULL CHECK (version >= 1),
      mailbox_id text NOT NULL REFERENCES mailboxes (id),
      definition text NOT NULL,
      content_digest text NOT NULL,
      recipients_digest text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      activated_at timestamptz,
      UNIQUE (workspace_id, name)
    );

    CREATE TABLE sequence_recipients (
      sequence_id text NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
      position integer NOT NULL,
      person_id text NOT NULL,
      email text,
      country text NOT NULL CHECK (country IN ('CL', 'MX')),
      fields text NOT NULL,
      source text NOT NULL,
      lawful_basis text,
      suppressed_reason text,
      PRIMARY KEY (sequence_id, person_id),
      UNIQUE (sequence_id, position)
    );

    CREATE TABLE suppressions (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      address text NOT NULL,
      reason text NOT NULL CHECK (
        reason IN ('unsubscribed', 'bounced', 'complained', 'no_molestar', 'repep', 'blocked_domain')
      ),
      source text NOT NULL,
      at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, address)
    );

    CREATE TABLE sequence_preflights (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      sequence_id text NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
      version integer NOT NULL,
      content_digest text NOT NULL,
      recipients_digest text NOT NULL,
      ok boolean NOT NULL,
      blockers text NOT NULL,
      warnings text NOT NULL,
      ruleset_version text NOT NULL,
      checked_at timestamptz NOT NULL
    );
    CREATE INDEX sequence_preflights_latest ON sequence_preflights (sequence_id, checked_at DESC);
  `))
