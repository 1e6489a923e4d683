import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Cerebro, the team's memory: each workspace's topics (the current version, searched accent- and
 * case-insensitively through `search_text`) and every version a topic ever had, which is never updated.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE EXTENSION IF NOT EXISTS unaccent;
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE TABLE topics (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      area text NOT NULL CHECK (area IN ('clientes', 'producto', 'mercado', 'procesos', 'competencia', 'equipo')),
      title text NOT NULL,
      title_key text NOT NULL,
      body text NOT NULL,
      tags text[] NOT NULL,
      pattern text,
      search_text text NOT NULL,
      version integer NOT NULL CHECK (version >= 1),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by text NOT NULL,
      updated_by text NOT NULL,
      UNIQUE (workspace_id, area, title_key)
    );
    CREATE INDEX topics_workspace ON topics (workspace_id, updated_at DESC);
    CREATE INDEX topics_search ON topics USING gin (search_text gin_trgm_ops);
    CREATE TABLE topic_versions (
      topic_id text NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
      version integer NOT NULL,
      workspace_id text NOT NULL,
      area text NOT NULL,
      title text NOT NULL,
      body text NOT NULL,
      tags text[] NOT NULL,
      pattern text,
      recorded_at timestamptz NOT NULL,
      recorded_by text NOT NULL,
      PRIMARY KEY (topic_id, version)
    );
    CREATE TRIGGER topic_versions_append_only BEFORE UPDATE ON topic_versions
      FOR EACH ROW EXECUTE FUNCTION audit_append_only();
  `))
