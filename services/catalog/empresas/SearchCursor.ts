import { Effect, Either, Schema } from "effect"
import { InvalidInput } from "../../../schema/Errors.ts"
import { fold } from "../../../schema/geo/Guard.ts"
import { Int4 } from "../../../schema/Int4.ts"
import { sha256 } from "../../Crypto.ts"
import { SealedCursor } from "../SealedCursor.ts"

/** Where a page of a list ends (the last item's position, an integer column), and the list's total. */
const Position = Schema.Struct({
  s: Schema.String,
  a: Int4(0),
  t: Schema.Int,
  l: Schema.Boolean
})
export type Position = typeof Position.Type

const decodePosition = Schema.decodeUnknownEither(Schema.parseJson(Position))

export const encodeCursor = (position: Position) => Buffer.from(JSON.stringify(position), "utf8").toString("base64url")

const badCursor = (message: string) =>
  new InvalidInput({ message: `input.cursor: ${message}`, issues: [{ path: "input.cursor", message }] })

const ANOTHER_SEARCH = "this cursor belongs to another search: send the same filters as its first page"

/** The position a cursor holds, when it was made by the same search (`searchId`); `another` says why one that was not is refused. */
export const readCursor = Effect.fn("Empresas.readCursor")(
  function* (cursor: string | undefined, searchId: string, another: string = ANOTHER_SEARCH) {
    if (cursor === undefined) return undefined
    const decoded = decodePosition(Buffer.from(cursor, "base64url").toString("utf8"))
    if (Either.isLeft(decoded)) return yield* badCursor("not a cursor of this tool")
    if (decoded.right.s !== searchId) return yield* badCursor(another)
    return decoded.right
  }
)

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
