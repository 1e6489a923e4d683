import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The hourly read ceiling without a count per call. `brein_take_read` counted a workspace's reads of
 * the hour on every call, a scan that grew with the hour's reads (up to the plan's limit, or any
 * number on a raised one). `read_windows` keeps, per workspace, how many `read_usage` rows it has; a
 * take deletes the rows that left the window (under the same lock) and takes them off the count, so
 * a take costs the same at the first read of the hour as at the thousandth. The oldest read of the
 * window is the first entry of its index.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE read_windows (
      workspace_id text PRIMARY KEY,
      used integer NOT NULL CHECK (used >= 0)
    );
    INSERT INTO read_windows (workspace_id, used) SELECT workspace_id, count(*)::integer FROM read_usage GROUP BY workspace_id;

    CREATE OR REPLACE FUNCTION brein_take_read(p_workspace text, p_at timestamptz, p_window interval, p_limit integer, p_request text,
      p_own_commit boolean)
    RETURNS TABLE (allowed boolean, used integer, oldest timestamptz) LANGUAGE plpgsql AS $$
    DECLARE
      n integer;
      gone integer;
      first timestamptz;
    BEGIN
      IF p_own_commit THEN
        PERFORM set_config('synchronous_commit', 'off', true);
      END IF;
      PERFORM pg_advisory_xact_lock(hashtextextended('brein.reads:' || p_workspace, 0));
      DELETE FROM read_usage r WHERE r.workspace_id = p_workspace AND r.at <= p_at - p_window;
      GET DIAGNOSTICS gone = ROW_COUNT;
      n := coalesce((SELECT w.used FROM read_windows w WHERE w.workspace_id = p_workspace), 0) - gone;
      SELECT r.at INTO first FROM read_usage r WHERE r.workspace_id = p_workspace ORDER BY r.at LIMIT 1;
      INSERT INTO read_windows AS w (workspace_id, used) VALUES (p_workspace, CASE WHEN n >= p_limit THEN n ELSE n + 1 END)
        ON CONFLICT (workspace_id) DO UPDATE SET used = excluded.used;
      IF n >= p_limit THEN
        RETURN QUERY SELECT false, n, first;
        RETURN;
      END IF;
      INSERT INTO read_usage (workspace_id, at, request_id) VALUES (p_workspace, p_at, p_request);
      RETURN QUERY SELECT true, n + 1, coalesce(first, p_at);
    END
    $$;
  `))
