import { Effect } from "effect"
import { Market } from "./Market.ts"
import { common as mercado } from "./Paging.ts"

export { FAMILY } from "./Paging.ts"

/** What the five aggregates share with every Mercado tool, and answers that sum figures. */
export const common = { ...mercado, aggregate: true } as const

/** The data set an aggregate reads: with none loaded the question fails saying how to load one, never answers zeros. */
export const loaded = Effect.flatMap(Market, (market) => market.dataset())
