import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The order jobs were queued in, where their times tie: a sync's scopes are queued by one statement, in
 * the order asked for, and rows of one instant were ordered by their random ids. A sequence, not each
 * row's position within its insert: one counter for every statement, transaction and process, drawn in
 * the order a statement produces its rows, where positions would tie again between two syncs of one
 * instant. Jobs queued before it are numbered in the order they were read in, (created_at, id). Written
 * to run again over its own result (the sequence never goes back, numbered jobs keep their number).
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    ALTER TABLE sync_jobs ADD COLUMN IF NOT EXISTS seq bigint;
    CREATE SEQUENCE IF NOT EXISTS sync_jobs_seq OWNED BY sync_jobs.seq;
    UPDATE sync_jobs j SET seq = o.n
    FROM (SELECT id, (SELECT coalesce(max(seq), 0) FROM sync_jobs) + row_number() OVER (ORDER BY created_at, id) AS n
          FROM sync_jobs WHERE seq IS NULL) o
    WHERE j.id = o.id;
    ALTER TABLE sync_jobs ALTER COLUMN seq SET NOT NULL;
    SELECT setval('sync_jobs_seq', greatest(
      (SELECT coalesce(max(seq), 0) FROM sync_jobs),
      (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM sync_jobs_seq)) + 1, false);
    ALTER TABLE sync_jobs ALTER COLUMN seq SET DEFAULT nextval('sync_jobs_seq');
    CREATE INDEX IF NOT EXISTS sync_jobs_connection_order ON sync_jobs (connection_id, created_at DESC, seq DESC);
    DROP INDEX IF EXISTS sync_jobs_connection;
  `))
