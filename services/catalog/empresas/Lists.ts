import { SqlClient } from "@effect/sql"
import { DateTime, Effect, Option, Schema } from "effect"
import type { ListKind } from "../../../schema/catalog/Directory.ts"
import { readSnapshot } from "../../Database.ts"
import { newId } from "../../Ids.ts"

const ListRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  kind: Schema.Literal("companies", "people"),
  updatedAt: Schema.DateFromSelf,
  total: Schema.Int
})
export type ListRow = typeof ListRow.Type

const ItemRow = Schema.Struct({ position: Schema.Int, itemId: Schema.String })

const SavedRow = Schema.Struct({ id: Schema.String, replaced: Schema.Boolean, updatedAt: Schema.DateFromSelf })

export interface SavedList {
  readonly id: string
  readonly replaced: boolean
  readonly updatedAt: Date
}

/** A workspace's saved lists of companies or people: written whole, read by pages of positions. */
export class Lists extends Effect.Service<Lists>()("brein/catalog/empresas/Lists", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Creates the list or replaces its kind and items; the caller's transaction makes it all or nothing.
     * `updated_at` is the version a list_get cursor is of, so each save moves it forward: to now, or a
     * millisecond past the last save's where that is not earlier (two saves within a millisecond, or a
     * clock set back).
     */
    const save = Effect.fn("Lists.save")(function* (workspaceId: string, name: string, kind: ListKind, ids: ReadonlyArray<string>) {
      const now = DateTime.toDateUtc(yield* DateTime.now)
      const fresh = yield* newId("li")
      const rows = yield* sql`
        INSERT INTO lists (id, workspace_id, name, kind, created_at, updated_at)
        VALUES (${fresh}, ${workspaceId}, ${name}, ${kind}, ${now}, ${now})
        ON CONFLICT (workspace_id, name) DO UPDATE
          SET kind = EXCLUDED.kind, updated_at = greatest(EXCLUDED.updated_at, lists.updated_at + interval '1 millisecond')
        RETURNING id, (xmax <> 0) AS replaced, updated_at`.pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(SavedRow))), Effect.orDie)
      const saved = rows[0]
      if (saved === undefined) return yield* Effect.dieMessage("list upsert returned no row")
      yield* sql`DELETE FROM list_items WHERE list_id = ${saved.id}`.pipe(Effect.orDie)
      yield* sql.unsafe(
        "INSERT INTO list_items (list_id, position, item_id) SELECT $1, u.position, u.item_id FROM unnest($2::int4[], $3::text[]) AS u(position, item_id)",
        [saved.id, ids.map((_, i) => i + 1), ids]
      ).pipe(Effect.orDie)
      return saved satisfies SavedList
    })

    /** The workspace's list by name or id; another workspace's list is not found. */
    const find = Effect.fn("Lists.find")(function* (workspaceId: string, by: { readonly name: string } | { readonly id: string }) {
      const rows = yield* sql`
        SELECT l.id, l.name, l.kind, l.updated_at, (SELECT count(*)::int FROM list_items i WHERE i.list_id = l.id) AS total
        FROM lists l WHERE l.workspace_id = ${workspaceId} AND ${"name" in by ? sql`l.name = ${by.name}` : sql`l.id = ${by.id}`}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(ListRow))),
        Effect.orDie
      )
      return Option.fromNullable(rows[0])
    })

    /** Items after `after` (a position), `limit + 1` of them: the last only says more follow. */
    const items = Effect.fn("Lists.items")(function* (listId: string, after: number, limit: number) {
      return yield* sql`
        SELECT position, item_id FROM list_items WHERE list_id = ${listId} AND position > ${after} ORDER BY position LIMIT ${limit + 1}`
        .pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(ItemRow))),
          Effect.orDie
        )
    })

    /** Runs reads of a list and its items on one snapshot: a page is of one version (Database.readSnapshot). */
    const snapshot = <A, E, R>(reads: Effect.Effect<A, E, R>) => readSnapshot(sql, reads)

    return { save, find, items, snapshot }
  })
}) {}
