import { Effect } from "effect"
import { COUNT_CAP } from "../../../schema/catalog/Empresas.ts"
import type { NextAction } from "../../../schema/tools/Response.ts"
import type { CallInfo } from "../../tools/Tool.ts"
import { searchIdOf } from "../empresas/SearchCursor.ts"
import { SealedCursor } from "../SealedCursor.ts"
import { today } from "./InForce.ts"
import { Market } from "./Market.ts"
import type { Search } from "./Query.ts"
import { type Referenced, Unknown } from "./Unknown.ts"

export const FAMILY = "mercado"

const readHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const

/** What every Mercado tool declares: action plane, counted against the hourly reads, abstracted for the model. */
export const common = {
  family: FAMILY,
  plan: "free",
  hints: readHints,
  cost: { kind: "read" },
  level: 0,
  stages: ["buscando"],
  exposure: "abstracted"
} as const

/** The fields given (under exactOptionalPropertyTypes an absent filter is left out, never undefined). */
export const given = <T extends Record<string, unknown>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> }

export interface PageRequest {
  readonly limit: number
  readonly cursor?: string
}

/**
 * A tool's search in sealed pages: the first page counts (up to COUNT_CAP) and the cursor carries the
 * count on, bound to the workspace, the search (tool and filters) and the data set loaded. A supplier or
 * buying unit the filters name (`referenced`) that the data set does not hold is a RecordNotFound, once
 * a data set is known to be loaded (on the first page: later pages come with the cursor it sealed). The Clock's day is read once, for the page and its count alike.
 */
export const paging = <F extends object, Row extends { readonly id: string }>(toolId: string, search: Search<F, Row>) =>
  Effect.fn("Mercado.search")(function* (filter: F, request: PageRequest, ctx: CallInfo, referenced: Referenced = {}) {
    const market = yield* Market
    const cursors = yield* SealedCursor
    const loaded = yield* market.dataset()
    // a cursor is sealed to these filters and this data set: their references were looked up on the first page
    if (request.cursor === undefined) yield* (yield* Unknown).refuse(referenced)
    const searchId = searchIdOf(toolId, filter)
    const expected = { toolId, search: searchId, workspace: ctx.principal.workspaceId, dataset: loaded.stamp }
    const at = request.cursor === undefined ? undefined : yield* cursors.open(request.cursor, expected)
    const { count, page } = market.searcher(search)
    const day = yield* today
    const [rows, counted] = yield* Effect.all([
      page(filter, day, at?.position, request.limit),
      at?.total === undefined ? count(filter, day) : Effect.succeed(at.lowerBound === true ? COUNT_CAP + 1 : at.total)
    ], { concurrency: 2 })
    const shown = rows.slice(0, request.limit)
    const last = rows.length > request.limit ? shown[shown.length - 1] : undefined
    const total = Math.min(counted, COUNT_CAP)
    const lowerBound = counted > COUNT_CAP
    const cursor = last === undefined ? null : yield* cursors.seal({
      position: search.positionOf(last),
      search: searchId,
      workspace: expected.workspace,
      dataset: loaded.stamp,
      total,
      lowerBound
    })
    return {
      head: { search_id: searchId, ref: `${toolId}:${searchId}`, total, total_is_lower_bound: lowerBound, cursor },
      rows: shown
    }
  })

/** The next actions of a page, and a hint when nothing matched or the total is a lower bound. */
export const annotatePage = Effect.fn("Mercado.annotatePage")(function* (
  ctx: CallInfo,
  what: string,
  head: { readonly total: number; readonly total_is_lower_bound: boolean },
  next: ReadonlyArray<NextAction>
) {
  yield* ctx.annotate({
    ...(next.length === 0 ? {} : { next_actions: next }),
    ...(head.total === 0
      ? { hint: `No ${what} match these filters: drop a filter or use fewer words (market_capabilities says what the data covers).` }
      : head.total_is_lower_bound
      ? { hint: `More than ${COUNT_CAP.toLocaleString("en-US")} ${what} match: add filters (state, year, type) to narrow the search.` }
      : {})
  })
})
