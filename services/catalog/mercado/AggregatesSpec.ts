import { common as mercado } from "./Paging.ts"

export { FAMILY } from "./Paging.ts"

/** What the five aggregates share with every Mercado tool, and answers that sum figures. */
export const common = { ...mercado, aggregate: true } as const
