import type { MarketSector } from "../../../schema/catalog/MarketSectors.ts"
import { outsiderAt, supplierAt } from "./Holders.ts"
import { marketIds } from "./Ids.ts"
import { type Market, procedureAt } from "./Procedures.ts"
import type { AwardRow, MarketBatch, OpportunityRow, PermitRow, RiskRow, SupplierRow, SupplierSize } from "./Rows.ts"
import { buildUnits } from "./Units.ts"

export { DEFAULT_AWARDS, DEFAULT_MARKET_SEED, MAX_AWARDS } from "../../../schema/catalog/SeedSizes.ts"

/** How many of each the data set of `awards` contracts holds beside them. */
export const marketSizes = (awards: number) => {
  const suppliers = Math.max(40, Math.round(awards / 8))
  return {
    awards,
    suppliers,
    units: Math.min(5_000, Math.max(30, Math.round(awards / 150))),
    /** RFCs only on a risk list, and holders of permits only: none of them sells to the government. */
    riskOutsiders: Math.max(10, Math.round(suppliers * 0.02)),
    permitOutsiders: Math.max(10, Math.round(suppliers * 0.08))
  }
}

const SIZE_RANK: Record<SupplierSize, number> = { no_mipyme: 0, mediana: 1, pequena: 2, micro: 3 }

const empty: MarketBatch = { units: [], suppliers: [], permits: [], risks: [], opportunities: [], awards: [] }

/**
 * The data set of `seed` with exactly `awards` contracts, in batches of about `size` rows, in an order
 * that satisfies the foreign keys: units, suppliers with their permits and risks, outsiders, then
 * procedures with their awards. The same seed and size give the same rows, ids included.
 */
export function* marketBatches(seed: string, awards: number, size = 5_000): Generator<MarketBatch> {
  const ids = marketIds(seed)
  const sizes = marketSizes(awards)
  const units = buildUnits(seed, ids, sizes.units)
  yield { ...empty, units: units.map((u) => u.row) }

  const supplierSizes: Array<SupplierSize> = []
  const places: Array<readonly [MarketSector, string]> = []
  for (let start = 0; start < sizes.suppliers; start += size) {
    const end = Math.min(sizes.suppliers, start + size)
    const suppliers: Array<SupplierRow> = []
    const permits: Array<PermitRow> = []
    const risks: Array<RiskRow> = []
    for (let i = start; i < end; i++) {
      const generated = supplierAt(seed, ids, i)
      suppliers.push(generated.supplier)
      permits.push(...generated.permits)
      risks.push(...generated.risks)
      supplierSizes.push(generated.supplier.size)
      places.push([generated.supplier.sector, generated.supplier.state])
    }
    yield { ...empty, suppliers, permits, risks }
  }

  const outsiders = sizes.riskOutsiders + sizes.permitOutsiders
  const permits: Array<PermitRow> = []
  const risks: Array<RiskRow> = []
  for (let k = 0; k < outsiders; k++) {
    const index = sizes.suppliers + k
    const generated = outsiderAt(seed, ids, index, k < sizes.riskOutsiders ? "risk" : "permits")
    permits.push(...generated.permits)
    risks.push(...generated.risks)
  }
  yield { ...empty, permits, risks }

  const order = Array.from(supplierSizes.keys()).sort((a, b) =>
    (SIZE_RANK[supplierSizes[a] ?? "micro"] - SIZE_RANK[supplierSizes[b] ?? "micro"]) || a - b
  )
  const bySector = new Map<MarketSector, Array<number>>()
  const bySectorState = new Map<string, Array<number>>()
  for (const i of order) {
    const [sector, state] = places[i] ?? ["consultoria", "MX-CMX"]
    const all = bySector.get(sector)
    if (all === undefined) bySector.set(sector, [i])
    else all.push(i)
    const key = `${sector}/${state}`
    const local = bySectorState.get(key)
    if (local === undefined) bySectorState.set(key, [i])
    else local.push(i)
  }
  let running = 0
  const activity = Float64Array.from(units, (u) => (running += u.activity))
  const market: Market = { seed, ids, units, activity, supplierSizes, bySector, bySectorState, counters: new Map() }

  let made = 0
  let index = 0
  while (made < awards) {
    const opportunities: Array<OpportunityRow> = []
    const rows: Array<AwardRow> = []
    while (made < awards && rows.length < size) {
      const generated = procedureAt(market, index++, made, awards - made)
      opportunities.push(generated.opportunity)
      rows.push(...generated.awards)
      made += generated.awards.length
    }
    yield { ...empty, opportunities, awards: rows }
  }
}
