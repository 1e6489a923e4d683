import { Effect, Either, Schema } from "effect"
import { CursorRejected, InvalidInput } from "../../../schema/Errors.ts"
import { fold } from "../../../schema/geo/Guard.ts"
import { Int4 } from "../../../schema/Int4.ts"
import { sha256 } from "../../Crypto.ts"
import { SealedCursor } from "../SealedCursor.ts"

// The directory has no load stamp: a cursor's position is an id, still a valid keyset start after a reload.
const DIRECTORY = "directory"

/** The search a directory cursor must belong to: its tool and filters, and the workspace asking. */
export interface DirectorySearch {
  readonly toolId: string
  readonly searchId: string
  readonly workspace: string
}

/** Where the page of a directory search starts, from its sealed cursor (CursorRejected when forged, foreign, stale or of another search). */
export const openSearchCursor = Effect.fn("Empresas.openSearchCursor")(function* (cursor: string | undefined, search: DirectorySearch) {
  if (cursor === undefined) return undefined
  return yield* (yield* SealedCursor).open(cursor, {
    toolId: search.toolId,
    search: search.searchId,
    workspace: search.workspace,
    dataset: DIRECTORY
  })
})

/** The sealed cursor of the page after `lastId`, carrying the total counted on the first page; null on the last page. */
export const sealSearchCursor = Effect.fn("Empresas.sealSearchCursor")(function* (
  search: DirectorySearch,
  lastId: string | undefined,
  counted: { readonly total: number; readonly total_is_lower_bound: boolean }
) {
  if (lastId === undefined) return null
  return yield* (yield* SealedCursor).seal({
    position: { at: null, id: lastId },
    search: search.searchId,
    workspace: search.workspace,
    dataset: DIRECTORY,
    total: counted.total,
    lowerBound: counted.total_is_lower_bound
  })
})

/** A deterministic id of a search: the tool and its normalized filters (not the page). */
export const searchIdOf = (tool: string, filter: object) =>
  sha256(`${tool}\n${JSON.stringify(filter, Object.keys(filter).sort())}`).slice(0, 16)

/** The folded words of a name query long enough for the trigram index (3 characters or more). */
export const wordsOf = Effect.fn("Empresas.wordsOf")(function* (text: string | undefined, field: string) {
  if (text === undefined) return []
  // letters, not UTF-16 units: 日本語 is a word of three
  const words = [...new Set(fold(text).split(" ").filter((w) => [...w].length >= 3))].slice(0, 8)
  if (words.length === 0) {
    const message = "give at least one word of 3 or more letters"
    return yield* new InvalidInput({ message: `input.${field}: ${message}`, issues: [{ path: `input.${field}`, message }] })
  }
  return words
})

/** The list version a list_get cursor must belong to: the list, its version's ref, and the workspace asking. */
export interface ListPage {
  readonly listId: string
  readonly version: string
  readonly workspace: string
}

// A list cursor's data set is the version it was read on: once the list is saved again, the cursor is stale.
const listExpected = (page: ListPage) => ({
  toolId: "list_get",
  search: searchIdOf("list_get", { list_id: page.listId }),
  workspace: page.workspace,
  dataset: page.version
})

const decodeListPosition = Schema.decodeUnknownEither(Schema.compose(Schema.NumberFromString, Int4(0)))

/** The list position a page starts after, from its sealed cursor (CursorRejected when forged, foreign, stale or of another list). */
export const openListCursor = Effect.fn("Empresas.openListCursor")(function* (cursor: string | undefined, page: ListPage) {
  if (cursor === undefined) return undefined
  const sealed = yield* (yield* SealedCursor).open(cursor, listExpected(page))
  const position = decodeListPosition(sealed.position.id)
  if (Either.isLeft(position)) return yield* CursorRejected.of("tampered", "list_get")
  return position.right
})

/** The sealed cursor of the list page after `position`; null on the last page. */
export const sealListCursor = Effect.fn("Empresas.sealListCursor")(function* (page: ListPage, position: number | undefined) {
  if (position === undefined) return null
  const { toolId: _toolId, ...expected } = listExpected(page)
  return yield* (yield* SealedCursor).seal({ ...expected, position: { at: null, id: String(position) } })
})
