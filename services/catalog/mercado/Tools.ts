import { catalog } from "../../tools/Source.ts"
import { marketGetSupplierHistory, marketScreenRisks } from "./AggregatesSupplierTools.ts"
import { marketAggregateAwards, marketCompareSegments, marketCountSuppliers } from "./AggregatesTools.ts"
import { FAMILY } from "./Paging.ts"
import { marketCapabilities, marketGetOpportunity, marketGetSupplier } from "./RecordTools.ts"
import {
  marketSearchAwards,
  marketSearchOpportunities,
  marketSearchPermits,
  marketSearchRisks,
  marketSearchSuppliers
} from "./SearchTools.ts"

/**
 * Mercado: Mexican public procurement (suppliers, procedures, awards, permits, risk lists), read from
 * the loaded data set: what it covers, searches and records, and aggregates that answer every total
 * with its average and ref.
 */
export const MercadoCatalog = catalog({
  family: FAMILY,
  tools: [
    marketCapabilities,
    marketSearchSuppliers,
    marketSearchOpportunities,
    marketSearchAwards,
    marketSearchPermits,
    marketSearchRisks,
    marketGetSupplier,
    marketGetOpportunity,
    marketCountSuppliers,
    marketCompareSegments,
    marketAggregateAwards,
    marketGetSupplierHistory,
    marketScreenRisks
  ]
})
