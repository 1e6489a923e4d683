import { Reactivity } from "@effect/experimental"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { sqlState } from "../../services/Database.ts"
import { databaseBefore } from "../support/MigrateTo.ts"

describe("0024_sequence_names_ignore_case", () => {
  it.scopedLive("names that differ only in case keep the oldest as is and the others get their id; then such a name is refused", () =>
    Effect.gen(function* () {
      const { all, sql } = yield* databaseBefore("0024")
      yield* sql.unsafe(`
        INSERT INTO workspaces (id, name, plan) VALUES ('ws_a', 'a', 'free'), ('ws_b', 'b', 'free');
        INSERT INTO mailboxes (id, workspace_id, email, display_name, grant_id, spf, dkim, dmarc, daily_cap, min_spacing_seconds, created_at)
          VALUES ('mb_a', 'ws_a', 'v@a.cl', 'V', 'g_a', true, true, true, 100, 30, now()),
                 ('mb_b', 'ws_b', 'v@b.cl', 'V', 'g_b', true, true, true, 100, 30, now());
        INSERT INTO sequences (id, workspace_id, name, status, version, mailbox_id, definition, content_digest, recipients_digest,
          created_at, updated_at)
        VALUES ('sq_1', 'ws_a', 'Q4 Prospects', 'active', 1, 'mb_a', '{}', 'c1', 'r', '2026-01-01', '2026-01-01'),
               ('sq_2', 'ws_a', 'q4 prospects', 'draft', 1, 'mb_a', '{}', 'c2', 'r', '2026-01-02', '2026-01-02'),
               ('sq_3', 'ws_a', 'Q4 PROSPECTS', 'draft', 1, 'mb_a', '{}', 'c3', 'r', '2026-01-03', '2026-01-03'),
               ('sq_4', 'ws_b', 'q4 prospects', 'draft', 1, 'mb_b', '{}', 'c4', 'r', '2026-01-01', '2026-01-01');
      `)
      yield* all

      const rows = yield* sql<{ id: string; name: string; content_digest: string }>`
        SELECT id, name, content_digest FROM sequences ORDER BY id`
      assert.deepStrictEqual(rows.map((r) => [r.id, r.name]), [
        ["sq_1", "Q4 Prospects"],
        ["sq_2", "q4 prospects (sq_2)"],
        ["sq_3", "Q4 PROSPECTS (sq_3)"],
        ["sq_4", "q4 prospects"]
      ])
      assert.deepStrictEqual(rows.map((r) => r.content_digest), ["c1", "c2", "c3", "c4"], "digests are left as they were")

      const refused = yield* sql`INSERT INTO sequences (id, workspace_id, name, status, version, mailbox_id, definition,
          content_digest, recipients_digest, created_at, updated_at)
        VALUES ('sq_5', 'ws_a', 'Q4 prospects', 'draft', 1, 'mb_a', '{}', 'c5', 'r', now(), now())`.pipe(Effect.flip)
      assert.strictEqual(sqlState(refused), "23505")
    }).pipe(Effect.provide(Reactivity.layer)))
})
