import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, Schema } from "effect"
import { BoardItem } from "../../schema/catalog/Session.ts"
import { Forbidden, InvalidInput } from "../../schema/Errors.ts"
import { leading } from "../../schema/Length.ts"
import type { Principal } from "../../schema/Principal.ts"

const Row = Schema.Struct({
  items: Schema.parseJson(Schema.Array(BoardItem)),
  selected: Schema.Array(Schema.String),
  version: Schema.Int
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

const MAX_ITEMS = 500

export const outsideSession = (toolId: string) =>
  new Forbidden({
    reason: "in_process_only",
    message: `${toolId} works inside a chat session: it reads and writes that session's board`,
    hint: "Luna calls it with the session it runs in; outside a session there is no board"
  })

/** A chat session's board: the items shown (put there by the chat from tool results) and the user's selection of them. */
export class Boards extends Effect.Service<Boards>()("brein/catalog/Boards", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // a failed statement is a defect here (the executor answers ServiceUnavailable when the database is away)
    const atomically = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))

    const view = (sessionId: string, board: typeof Row.Type) => ({
      ref: `board:${sessionId}@v${board.version}`,
      items: board.items,
      selected: board.selected,
      total: board.items.length,
      selected_total: board.selected.length,
      version: board.version
    })

    const current = Effect.fn("Boards.current")(function* (principal: Principal, sessionId: string, lock: boolean) {
      const rows = yield* (lock
        ? sql`SELECT items, selected, version FROM session_boards WHERE workspace_id = ${principal.workspaceId} AND session_id = ${sessionId} FOR UPDATE`
        : sql`SELECT items, selected, version FROM session_boards WHERE workspace_id = ${principal.workspaceId} AND session_id = ${sessionId}`)
        .pipe(Effect.flatMap(decodeRows), Effect.orDie)
      return Option.fromNullable(rows[0])
    })

    const read = Effect.fn("Boards.read")(function* (principal: Principal, sessionId: string) {
      const board = yield* current(principal, sessionId, false)
      return view(sessionId, Option.getOrElse(board, () => ({ items: [], selected: [], version: 0 })))
    })

    const write = Effect.fn("Boards.write")(
      function* (principal: Principal, sessionId: string, items: ReadonlyArray<BoardItem>, selected: ReadonlyArray<string>) {
        const at = new Date(yield* Clock.currentTimeMillis)
        const rows = yield* sql`INSERT INTO session_boards (workspace_id, session_id, items, selected, version, updated_at)
          VALUES (${principal.workspaceId}, ${sessionId}, ${JSON.stringify(items)}, ${selected}, 1, ${at})
          ON CONFLICT (workspace_id, session_id) DO UPDATE SET items = excluded.items, selected = excluded.selected,
            version = session_boards.version + 1, updated_at = excluded.updated_at
          RETURNING items, selected, version`.pipe(Effect.flatMap(decodeRows), Effect.orDie)
        return view(sessionId, rows[0] ?? { items, selected, version: 1 })
      },
      atomically
    )

    /** Puts items on the board (the chat, from tool results): new ones after those shown, a shown one keeps its place. */
    const show = Effect.fn("Boards.show")(function* (principal: Principal, sessionId: string, items: ReadonlyArray<BoardItem>) {
      const board = Option.getOrElse(yield* current(principal, sessionId, true), () => ({ items: [], selected: [], version: 0 }))
      const known = new Set(board.items.map((item) => item.id))
      const merged = [...board.items, ...items.filter((item) => !known.has(item.id))].slice(-MAX_ITEMS)
      const kept = new Set(merged.map((item) => item.id))
      return yield* write(principal, sessionId, merged, board.selected.filter((id) => kept.has(id)))
    }, atomically)

    const select = Effect.fn("Boards.select")(
      function* (principal: Principal, sessionId: string, ids: ReadonlyArray<string>, mode: "replace" | "add" | "remove") {
        const board = Option.getOrElse(yield* current(principal, sessionId, true), () => ({ items: [], selected: [], version: 0 }))
        const onBoard = new Set(board.items.map((item) => item.id))
        const missing = ids.filter((id) => !onBoard.has(id))
        if (missing.length > 0) {
          return yield* InvalidInput.of(
            missing.slice(0, 10).map((id) => ({ path: "input.ids", message: `${leading(id, 100)} is not on the board` })),
            missing.length
          )
        }
        const chosen = new Set(mode === "replace" ? ids : board.selected)
        if (mode === "add") ids.forEach((id) => chosen.add(id))
        if (mode === "remove") ids.forEach((id) => chosen.delete(id))
        const selected = board.items.map((item) => item.id).filter((id) => chosen.has(id))
        return yield* write(principal, sessionId, board.items, selected)
      },
      atomically
    )

    return { read, show, select }
  })
}) {}
