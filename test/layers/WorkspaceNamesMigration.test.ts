import { Reactivity } from "@effect/experimental"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseBefore } from "../support/MigrateTo.ts"

describe("0025_workspace_names_trimmed", () => {
  it.scopedLive("names stored with spaces around them are trimmed, unless the trimmed name is taken; ids and keys stay", () =>
    Effect.gen(function* () {
      const { all, sql } = yield* databaseBefore("0025")
      yield* sql.unsafe(`
        INSERT INTO workspaces (id, name, plan, created_at) VALUES
          ('ws_1', ' acme ', 'paid', '2026-01-01'),
          ('ws_2', 'taken', 'free', '2026-01-01'),
          ('ws_3', 'taken  ', 'free', '2026-01-02'),
          ('ws_4', E'\\tdup', 'free', '2026-01-01'),
          ('ws_5', 'dup ', 'free', '2026-01-02'),
          ('ws_6', 'plain', 'free', '2026-01-01');
        INSERT INTO api_keys (id, workspace_id, prefix, key_hash) VALUES ('key_1', 'ws_1', 'bk_live_abc', 'h1');
      `)
      yield* all

      const rows = yield* sql<{ id: string; name: string }>`SELECT id, name FROM workspaces ORDER BY id`
      assert.deepStrictEqual(rows.map((r) => [r.id, r.name]), [
        ["ws_1", "acme"],
        ["ws_2", "taken"],
        ["ws_3", "taken  "],
        ["ws_4", "dup"],
        ["ws_5", "dup "],
        ["ws_6", "plain"]
      ])
      const keys = yield* sql<{ owner: string }>`SELECT workspace_id AS owner FROM api_keys`
      assert.deepStrictEqual(keys.map((k) => k.owner), ["ws_1"])
    }).pipe(Effect.provide(Reactivity.layer)))
})
