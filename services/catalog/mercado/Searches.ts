import { Schema } from "effect"
import { AwardSummary, OpportunitySummary, PermitSummary, RiskRecord, SupplierSummary } from "../../../schema/catalog/Mercado.ts"
import { atRiskSql, clearedSql } from "./InForce.ts"
import { type Clause, containing, type Search, when } from "./Query.ts"

export const SupplierRow = SupplierSummary.pipe(Schema.omit("ref", "state_name"))
export const OpportunityRow = OpportunitySummary.pipe(Schema.omit("ref", "state_name"))
export const AwardRow = AwardSummary.pipe(Schema.omit("ref", "state_name"))
export const PermitRow = PermitSummary.pipe(Schema.omit("ref", "state_name"))
export const RiskRow = RiskRecord.pipe(Schema.omit("ref"))

export interface SupplierFilter {
  readonly words: ReadonlyArray<string>
  readonly state?: string
  readonly size?: string
  readonly sector?: string
  readonly rfc?: string
  readonly hasRisk?: boolean
}

/** A supplier's columns, `has_risk` as of the day in the one parameter `?`. */
export const supplierColumns = (today: string): Clause => ({
  sql: `s.id, s.rfc, s.persona, s.name, s.state, s.size, s.status, s.sector, s.rupc_folio,
  s.registered_on::text AS registered_on, ${atRiskSql("?")} AS has_risk`,
  params: [today]
})

export const suppliers: Search<SupplierFilter, typeof SupplierRow.Type> = {
  columns: supplierColumns,
  from: "market_suppliers s",
  countFrom: "market_suppliers s",
  order: { at: null, id: "s.id" },
  where: (f, today) => [
    ...containing(["s.name_folded"], f.words),
    when(f.state, "s.state = ?"),
    when(f.size, "s.size = ?"),
    when(f.sector, "s.sector = ?"),
    when(f.rfc, "s.rfc = ?"),
    f.hasRisk === undefined ? undefined : { sql: f.hasRisk ? atRiskSql("?") : `NOT ${atRiskSql("?")}`, params: [today] }
  ],
  row: SupplierRow,
  positionOf: (row) => ({ at: null, id: row.id })
}

export interface OpportunityFilter {
  readonly words: ReadonlyArray<string>
  readonly state?: string
  readonly unit?: string
  readonly agency?: string
  readonly procedureType?: string
  readonly contractType?: string
  readonly status?: string
  readonly publishedFrom?: string
  readonly publishedTo?: string
}

export const OPPORTUNITY_COLUMNS = `o.id, o.number, o.title, o.unit_id, u.clave AS unit_clave, u.name AS unit_name, u.agency,
  o.procedure_type, o.law, o.contract_type, o.character, o.form, o.state, o.status, o.published_on::text AS published_on,
  o.opens_on::text AS opens_on, o.awarded_on::text AS awarded_on, o.estimated_amount::float8 AS estimated_amount`

export const opportunities: Search<OpportunityFilter, typeof OpportunityRow.Type> = {
  columns: OPPORTUNITY_COLUMNS,
  from: "market_opportunities o JOIN market_units u ON u.id = o.unit_id",
  countFrom: "market_opportunities o",
  order: { at: "o.published_on", id: "o.id" },
  where: (f) => [
    ...containing(["o.title_folded"], f.words),
    when(f.state, "o.state = ?"),
    when(f.unit, "o.unit_id = (SELECT id FROM market_units WHERE clave = ?)"),
    when(f.agency, "o.unit_id IN (SELECT id FROM market_units WHERE upper(agency) = ?)"),
    when(f.procedureType, "o.procedure_type = ?"),
    when(f.contractType, "o.contract_type = ?"),
    when(f.status, "o.status = ?"),
    when(f.publishedFrom, "o.published_on >= ?::date"),
    when(f.publishedTo, "o.published_on <= ?::date")
  ],
  row: OpportunityRow,
  positionOf: (row) => ({ at: row.published_on, id: row.id })
}

export interface AwardFilter {
  readonly supplierId?: string
  readonly rfc?: string
  readonly opportunityId?: string
  readonly unit?: string
  readonly state?: string
  readonly year?: number
  readonly signedFrom?: string
  readonly signedTo?: string
  readonly amountMin?: number
  readonly amountMax?: number
  readonly procedureType?: string
  readonly contractType?: string
}

export const AWARD_COLUMNS = `a.id, a.contract_code, a.title, a.amount::float8 AS amount, a.currency, a.signed_on::text AS signed_on,
  a.starts_on::text AS starts_on, a.ends_on::text AS ends_on, a.status, a.state, a.year, a.procedure_type, a.contract_type,
  a.supplier_id, s.rfc AS supplier_rfc, s.name AS supplier_name, a.supplier_size, a.unit_id, u.clave AS unit_clave,
  u.name AS unit_name, a.opportunity_id, o.number AS opportunity_number`

export const AWARDS_FROM = `market_awards a JOIN market_suppliers s ON s.id = a.supplier_id JOIN market_units u ON u.id = a.unit_id
  JOIN market_opportunities o ON o.id = a.opportunity_id`

export const awards: Search<AwardFilter, typeof AwardRow.Type> = {
  columns: AWARD_COLUMNS,
  from: AWARDS_FROM,
  countFrom: "market_awards a",
  order: { at: "a.signed_on", id: "a.id" },
  where: (f) => [
    when(f.supplierId, "a.supplier_id = ?"),
    when(f.rfc, "a.supplier_id = (SELECT id FROM market_suppliers WHERE rfc = ?)"),
    when(f.opportunityId, "a.opportunity_id = ?"),
    when(f.unit, "a.unit_id = (SELECT id FROM market_units WHERE clave = ?)"),
    when(f.state, "a.state = ?"),
    when(f.year, "a.year = ?"),
    when(f.signedFrom, "a.signed_on >= ?::date"),
    when(f.signedTo, "a.signed_on <= ?::date"),
    when(f.amountMin, "a.amount >= ?"),
    when(f.amountMax, "a.amount <= ?"),
    when(f.procedureType, "a.procedure_type = ?"),
    when(f.contractType, "a.contract_type = ?")
  ],
  row: AwardRow,
  positionOf: (row) => ({ at: row.signed_on, id: row.id }),
  summed: (f) =>
    [f.supplierId, f.rfc, f.opportunityId, f.unit, f.signedFrom, f.signedTo, f.amountMin, f.amountMax].some((v) => v !== undefined)
      ? undefined
      : [
        when(f.state, "state = ?"),
        when(f.year, "year = ?"),
        when(f.procedureType, "procedure_type = ?"),
        when(f.contractType, "contract_type = ?")
      ]
}

export interface PermitFilter {
  readonly words: ReadonlyArray<string>
  readonly kind?: string
  readonly state?: string
  readonly rfc?: string
  readonly status?: string
}

export const PERMIT_COLUMNS = `p.id, p.number, p.kind, p.authority, p.holder_rfc, p.holder_name, p.supplier_id, p.state, p.status,
  p.issued_on::text AS issued_on, p.expires_on::text AS expires_on`

export const permits: Search<PermitFilter, typeof PermitRow.Type> = {
  columns: PERMIT_COLUMNS,
  from: "market_permits p",
  countFrom: "market_permits p",
  order: { at: "p.issued_on", id: "p.id" },
  where: (f) => [
    ...containing(["brein_fold(p.holder_name)", "lower(p.number)"], f.words),
    when(f.kind, "p.kind = ?"),
    when(f.state, "p.state = ?"),
    when(f.rfc, "p.holder_rfc = ?"),
    when(f.status, "p.status = ?")
  ],
  row: PermitRow,
  positionOf: (row) => ({ at: row.issued_on, id: row.id })
}

export interface RiskFilter {
  readonly words: ReadonlyArray<string>
  readonly rfc?: string
  readonly list?: string
  readonly status?: string
}

export const RISK_COLUMNS = `r.id, r.rfc, r.name, r.supplier_id, r.list, r.status, ${clearedSql} AS cleared, r.authority,
  r.published_on::text AS published_on, r.ends_on::text AS ends_on, r.amount::float8 AS amount, r.detail`

export const risks: Search<RiskFilter, typeof RiskRow.Type> = {
  columns: RISK_COLUMNS,
  from: "market_risks r",
  countFrom: "market_risks r",
  order: { at: "r.published_on", id: "r.id" },
  where: (f) => [
    ...containing(["brein_fold(r.name)"], f.words),
    when(f.rfc, "r.rfc = ?"),
    when(f.list, "r.list = ?"),
    when(f.status, "r.status = ?")
  ],
  row: RiskRow,
  positionOf: (row) => ({ at: row.published_on, id: row.id })
}
