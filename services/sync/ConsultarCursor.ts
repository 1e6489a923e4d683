import { Effect } from "effect"
import { searchIdOf } from "../catalog/empresas/SearchCursor.ts"
import { type Position, SealedCursor } from "../catalog/SealedCursor.ts"

// A cache page's keyset (post date, row id) stays a valid start across syncs: no load stamp, only the cursor's life.
const CACHE = "connector-cache"

/** The query a `.consultar` cursor belongs to: the tool, the workspace and connection asking, and the filters (not the page size). */
export interface ConsultarQuery {
  readonly toolId: string
  readonly workspace: string
  readonly connectionId: string
  readonly filter: object
}

const expectedOf = (query: ConsultarQuery) => ({
  toolId: query.toolId,
  search: searchIdOf(query.toolId, { ...query.filter, connectionId: query.connectionId }),
  workspace: query.workspace,
  dataset: CACHE
})

/** Where the page starts, from a cursor sealed for this very query (CursorRejected when forged, foreign, stale or of another query). */
export const openConsultarCursor = Effect.fn("ConsultarCursor.open")(function* (cursor: string | undefined, query: ConsultarQuery) {
  if (cursor === undefined) return undefined
  const sealed = yield* (yield* SealedCursor).open(cursor, expectedOf(query))
  return sealed.position
})

/** The sealed cursor of the page after `position`; null on the last page. */
export const sealConsultarCursor = Effect.fn("ConsultarCursor.seal")(function* (query: ConsultarQuery, position: Position | null) {
  if (position === null) return null
  const { toolId: _toolId, ...expected } = expectedOf(query)
  return yield* (yield* SealedCursor).seal({ ...expected, position })
})
