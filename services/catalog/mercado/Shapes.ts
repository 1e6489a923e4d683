import type { AwardSummary, OpportunitySummary, PermitSummary, RiskRecord, SupplierSummary } from "../../../schema/catalog/Mercado.ts"
import { stateName } from "./Market.ts"
import type { AwardRow, OpportunityRow, PermitRow, RiskRow, SupplierRow } from "./Searches.ts"

export const toSupplier = (row: typeof SupplierRow.Type): SupplierSummary => ({
  ...row,
  ref: `supplier:${row.id}`,
  state_name: stateName(row.state)
})

export const toOpportunity = (row: typeof OpportunityRow.Type): OpportunitySummary => ({
  ...row,
  ref: `opportunity:${row.id}`,
  state_name: stateName(row.state)
})

export const toAward = (row: typeof AwardRow.Type): AwardSummary => ({ ...row, ref: `award:${row.id}`, state_name: stateName(row.state) })

export const toPermit = (row: typeof PermitRow.Type): PermitSummary => ({
  ...row,
  ref: `permit:${row.id}`,
  state_name: stateName(row.state)
})

export const toRisk = (row: typeof RiskRow.Type): RiskRecord => ({ ...row, ref: `risk:${row.id}` })
