import { Reactivity } from "@effect/experimental"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Record as Rec } from "effect"
import { migrations } from "../../layers/migrations/index.ts"
import { freshDatabase } from "../support/TestDatabase.ts"

const before = Rec.filter(migrations, (_, id) => id < "0025")

describe("0025_workspace_names_trimmed", () => {
  it.scopedLive("names stored with spaces around them are trimmed, unless the trimmed name is taken; ids and keys stay", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const sql = yield* PgClient.make({ url })
      const migrate = (record: Readonly<Record<string, (typeof migrations)[keyof typeof migrations]>>) =>
        PgMigrator.run({ loader: PgMigrator.fromRecord(record) }).pipe(
          Effect.provideService(SqlClient.SqlClient, sql),
          Effect.provide(NodeContext.layer)
        )
      yield* migrate(before)
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
      yield* migrate(migrations)

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
