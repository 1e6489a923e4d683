import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Sending of authorized sequences. An enrollment is one recipient of one authorized version; a send
 * is one step of one enrollment, keyed by (sequence, version, step, recipient) so it happens once:
 * it is claimed (`sending`, with a lease) and committed before the provider is called, and a claim
 * whose lease ran out is reconciled by asking the provider for a message with its send key. A hold
 * keeps a mailbox quiet while the provider asked to wait (429 Retry-After); a cursor remembers how
 * far a grant's notifications (bounces, replies, unsubscribes) were read.
 *
 * The `mail_sim_*` tables are the state of the bundled Nylas-shaped simulator; nothing else reads them.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE sequence_enrollments (
      sequence_id text NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
      version integer NOT NULL,
      person_id text NOT NULL,
      workspace_id text NOT NULL,
      mailbox_id text NOT NULL,
      email text NOT NULL,
      state text NOT NULL CHECK (state IN ('active', 'completed', 'replied', 'bounced', 'unsubscribed', 'suppressed', 'failed')),
      enrolled_at timestamptz NOT NULL,
      finished_at timestamptz,
      PRIMARY KEY (sequence_id, version, person_id)
    );

    CREATE TABLE sequence_sends (
      send_key text PRIMARY KEY,
      sequence_id text NOT NULL,
      version integer NOT NULL,
      step integer NOT NULL CHECK (step >= 0),
      person_id text NOT NULL,
      mailbox_id text NOT NULL,
      state text NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'cancelled', 'failed')),
      due_at timestamptz NOT NULL,
      claimed_at timestamptz,
      lease_until timestamptz,
      attempts integer NOT NULL DEFAULT 0,
      message_id text,
      thread_id text,
      sent_at timestamptz,
      error text,
      UNIQUE (sequence_id, version, step, person_id),
      FOREIGN KEY (sequence_id, version, person_id) REFERENCES sequence_enrollments (sequence_id, version, person_id) ON DELETE CASCADE
    );
    CREATE INDEX sequence_sends_due ON sequence_sends (mailbox_id, due_at) WHERE state = 'pending';
    CREATE INDEX sequence_sends_leased ON sequence_sends (lease_until) WHERE state = 'sending';
    CREATE INDEX sequence_sends_mailbox_day ON sequence_sends (mailbox_id, claimed_at) WHERE state IN ('sending', 'sent');
    CREATE INDEX sequence_sends_message ON sequence_sends (message_id);

    CREATE TABLE sequence_mailbox_holds (
      mailbox_id text PRIMARY KEY,
      hold_until timestamptz NOT NULL,
      reason text NOT NULL
    );

    CREATE TABLE sequence_mail_cursors (
      grant_id text PRIMARY KEY,
      after text NOT NULL,
      read_at timestamptz NOT NULL
    );

    CREATE SEQUENCE mail_sim_message_numbers;
    CREATE TABLE mail_sim_messages (
      id text PRIMARY KEY,
      grant_id text NOT NULL,
      thread_id text NOT NULL,
      to_email text NOT NULL,
      from_email text NOT NULL,
      subject text NOT NULL,
      body text NOT NULL,
      metadata text NOT NULL,
      send_key text,
      reply_to text,
      date timestamptz NOT NULL
    );
    CREATE INDEX mail_sim_messages_day ON mail_sim_messages (grant_id, date);
    CREATE INDEX mail_sim_messages_send_key ON mail_sim_messages (grant_id, send_key);

    CREATE TABLE mail_sim_notifications (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id text NOT NULL UNIQUE,
      grant_id text NOT NULL,
      type text NOT NULL,
      message_id text NOT NULL,
      thread_id text NOT NULL,
      address text NOT NULL,
      detail text NOT NULL,
      at timestamptz NOT NULL
    );
    CREATE INDEX mail_sim_notifications_grant ON mail_sim_notifications (grant_id, seq);
  `))
