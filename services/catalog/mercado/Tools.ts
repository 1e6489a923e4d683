import { catalog } from "../../tools/Source.ts"
import { FAMILY } from "./Paging.ts"
import { marketCapabilities, marketGetOpportunity, marketGetSupplier } from "./RecordTools.ts"
import {
  marketSearchAwards,
  marketSearchOpportunities,
  marketSearchPermits,
  marketSearchRisks,
  marketSearchSuppliers
} from "./SearchTools.ts"

/** Mercado: Mexican public procurement (suppliers, procedures, awards, permits, risk lists), read from the loaded data set. */
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
    marketGetOpportunity
  ]
})
