import { Reactivity } from "@effect/experimental"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseBefore } from "../support/MigrateTo.ts"

describe("0028_sync_job_order", () => {
  it.scopedLive("jobs queued before it keep every field and are numbered in the order they were read in; new jobs come after", () =>
    Effect.gen(function* () {
      const { all, sql } = yield* databaseBefore("0028")
      yield* sql.unsafe(`
        INSERT INTO workspaces (id, name, plan) VALUES ('ws_a', 'a', 'paid');
        INSERT INTO connections (id, workspace_id, connector) VALUES ('conn_a', 'ws_a', 'sii');
        INSERT INTO sync_jobs (id, connection_id, workspace_id, connector, scope_key, scope, state, attempts, counts, created_at) VALUES
          ('job_c', 'conn_a', 'ws_a', 'sii', 'k1', '{"p": "1"}', 'sincronizada', 1, '{"nuevos": 3}', '2026-01-01T00:00:00Z'),
          ('job_a', 'conn_a', 'ws_a', 'sii', 'k2', '{"p": "2"}', 'error', 3, '{}', '2026-01-01T00:00:00Z'),
          ('job_b', 'conn_a', 'ws_a', 'sii', 'k3', '{"p": "3"}', 'en_cola', 0, '{}', '2025-12-31T00:00:00Z');
      `)
      const rows = sql<{ row: unknown }>`SELECT to_jsonb(j) - 'seq' AS row FROM sync_jobs j ORDER BY id`
      const before = yield* rows
      yield* all

      assert.deepStrictEqual(yield* rows, before, "no job lost or changed")
      const order = () => sql<{ id: string }>`SELECT id FROM sync_jobs ORDER BY seq`
      assert.deepStrictEqual((yield* order()).map((r) => r.id), ["job_b", "job_a", "job_c"])
      const queue = (id: string, key: string) =>
        sql`INSERT INTO sync_jobs (id, connection_id, workspace_id, connector, scope_key, scope, state, created_at)
            VALUES (${id}, 'conn_a', 'ws_a', 'sii', ${key}, '{}', 'en_cola', '2026-01-01T00:00:00Z')`
      yield* queue("job_0", "k4")
      assert.deepStrictEqual((yield* order()).map((r) => r.id), ["job_b", "job_a", "job_c", "job_0"])

      // run again over its own result (its record lost, as an upgrade's test does): nothing is renumbered
      yield* sql`DELETE FROM effect_sql_migrations WHERE migration_id = 28`
      yield* all
      yield* queue("job_1", "k5")
      assert.deepStrictEqual((yield* order()).map((r) => r.id), ["job_b", "job_a", "job_c", "job_0", "job_1"])
    }).pipe(Effect.provide(Reactivity.layer)))
})
