import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** What a chat session's board shows (items Luna put there from tool results) and what the user selected of it. */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE session_boards (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      session_id text NOT NULL,
      items text NOT NULL,
      selected text[] NOT NULL DEFAULT '{}',
      version integer NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, session_id)
    );
  `))
