import { catalog } from "../../tools/Source.ts"
import { FAMILY } from "./AggregatesSpec.ts"
import { aggregateTools } from "./AggregatesTools.ts"

/** Mercado's aggregates: counts, segment comparisons, award sums, a supplier's history, risk screening. */
export const MercadoAggregatesCatalog = catalog({ family: FAMILY, tools: aggregateTools })
