import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The humans of a workspace: users who sign in with a one-time link (stored by the hash of its token,
 * used once, with an expiry) and the browser sessions it opens (stored by the hash of the cookie's
 * token; the CSRF token is derived from the session, never stored in clear). An API key or an MCP
 * client is never a user.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE users (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      email text NOT NULL,
      created_at timestamptz NOT NULL,
      disabled_at timestamptz,
      UNIQUE (workspace_id, email)
    );

    CREATE TABLE sign_in_links (
      token_hash text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    );

    CREATE TABLE user_sessions (
      id text PRIMARY KEY,
      token_hash text NOT NULL UNIQUE,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz
    );
    CREATE INDEX user_sessions_user ON user_sessions (user_id);
  `))
