import { Effect } from "effect"
import { Board, BoardReadInput, SelectionUpdateInput } from "../../schema/catalog/Session.ts"
import { pureHints } from "../../schema/connectors/Core.ts"
import { catalog } from "../tools/Source.ts"
import { action } from "../tools/Tool.ts"
import { Boards, outsideSession } from "./Boards.ts"

export const boardRead = action({
  id: "board_read",
  family: "session",
  label: "Leer el tablero",
  description: "What the chat board shows (items from earlier results, with their refs) and which of them the user selected.",
  plan: "free",
  hints: pureHints,
  cost: { kind: "free" },
  level: 0,
  stages: ["buscando", "prospectando", "con_lista"],
  external: false,
  input: BoardReadInput,
  output: Board,
  handler: (_input, ctx) =>
    Effect.gen(function* () {
      if (ctx.sessionId === null) return yield* outsideSession("board_read")
      return yield* (yield* Boards).read(ctx.principal, ctx.sessionId)
    })
})

export const selectionUpdate = action({
  id: "selection_update",
  family: "session",
  label: "Seleccionar en el tablero",
  description: "Replaces, adds to or removes from the user's selection on the chat board; every id must be on the board.",
  plan: "free",
  hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  cost: { kind: "free" },
  level: 0,
  stages: ["buscando", "con_lista"],
  external: false,
  input: SelectionUpdateInput,
  output: Board,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      if (ctx.sessionId === null) return yield* outsideSession("selection_update")
      return yield* (yield* Boards).select(ctx.principal, ctx.sessionId, input.ids, input.mode)
    })
})

export const SessionCatalog = catalog({ family: "session", tools: [boardRead, selectionUpdate] })
