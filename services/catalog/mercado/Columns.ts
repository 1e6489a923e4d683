import type { AwardRow, MarketBatch, OpportunityRow, PermitRow, RiskRow, SupplierRow, UnitRow } from "./Rows.ts"

type Column<R> = readonly [string, string, (row: R) => unknown]

interface Part {
  /** The INSERT with its parameters numbered from `first`. */
  readonly text: (first: number) => string
  readonly params: ReadonlyArray<ReadonlyArray<unknown>>
}

/** An INSERT of many rows as one array per column, whatever their number. */
const insert = <R>(table: string, columns: ReadonlyArray<Column<R>>) => {
  const text = (first: number) =>
    `INSERT INTO ${table} (${columns.map(([c]) => c).join(", ")}) SELECT * FROM unnest(${
      columns.map(([, t], i) => `$${first + i}::${t}[]`).join(", ")
    })`
  return (rows: ReadonlyArray<R>): ReadonlyArray<Part> =>
    rows.length === 0 ? [] : [{ text, params: columns.map(([, , get]) => rows.map(get)) }]
}

const units = insert<UnitRow>("market_units", [
  ["id", "text", (r) => r.id],
  ["clave", "text", (r) => r.clave],
  ["name", "text", (r) => r.name],
  ["agency", "text", (r) => r.agency],
  ["agency_name", "text", (r) => r.agencyName],
  ["government", "text", (r) => r.government],
  ["state", "text", (r) => r.state]
])

const suppliers = insert<SupplierRow>("market_suppliers", [
  ["id", "text", (r) => r.id],
  ["rfc", "text", (r) => r.rfc],
  ["persona", "text", (r) => r.persona],
  ["name", "text", (r) => r.name],
  ["state", "text", (r) => r.state],
  ["size", "text", (r) => r.size],
  ["status", "text", (r) => r.status],
  ["rupc_folio", "text", (r) => r.rupcFolio],
  ["sector", "text", (r) => r.sector],
  ["registered_on", "date", (r) => r.registeredOn]
])

const permits = insert<PermitRow>("market_permits", [
  ["id", "text", (r) => r.id],
  ["number", "text", (r) => r.number],
  ["kind", "text", (r) => r.kind],
  ["authority", "text", (r) => r.authority],
  ["holder_rfc", "text", (r) => r.holderRfc],
  ["holder_name", "text", (r) => r.holderName],
  ["supplier_id", "text", (r) => r.supplierId],
  ["state", "text", (r) => r.state],
  ["status", "text", (r) => r.status],
  ["issued_on", "date", (r) => r.issuedOn],
  ["expires_on", "date", (r) => r.expiresOn]
])

const risks = insert<RiskRow>("market_risks", [
  ["id", "text", (r) => r.id],
  ["rfc", "text", (r) => r.rfc],
  ["name", "text", (r) => r.name],
  ["supplier_id", "text", (r) => r.supplierId],
  ["list", "text", (r) => r.list],
  ["status", "text", (r) => r.status],
  ["authority", "text", (r) => r.authority],
  ["published_on", "date", (r) => r.publishedOn],
  ["ends_on", "date", (r) => r.endsOn],
  ["amount", "numeric", (r) => r.amount],
  ["detail", "text", (r) => r.detail]
])

const opportunities = insert<OpportunityRow>("market_opportunities", [
  ["id", "text", (r) => r.id],
  ["number", "text", (r) => r.number],
  ["unit_id", "text", (r) => r.unitId],
  ["title", "text", (r) => r.title],
  ["procedure_type", "text", (r) => r.procedureType],
  ["law", "text", (r) => r.law],
  ["contract_type", "text", (r) => r.contractType],
  ["character", "text", (r) => r.character],
  ["form", "text", (r) => r.form],
  ["state", "text", (r) => r.state],
  ["status", "text", (r) => r.status],
  ["published_on", "date", (r) => r.publishedOn],
  ["opens_on", "date", (r) => r.opensOn],
  ["awarded_on", "date", (r) => r.awardedOn],
  ["estimated_amount", "numeric", (r) => r.estimatedAmount]
])

const awards = insert<AwardRow>("market_awards", [
  ["id", "text", (r) => r.id],
  ["opportunity_id", "text", (r) => r.opportunityId],
  ["supplier_id", "text", (r) => r.supplierId],
  ["unit_id", "text", (r) => r.unitId],
  ["contract_code", "text", (r) => r.contractCode],
  ["title", "text", (r) => r.title],
  ["amount", "numeric", (r) => r.amount],
  ["currency", "text", (r) => r.currency],
  ["signed_on", "date", (r) => r.signedOn],
  ["starts_on", "date", (r) => r.startsOn],
  ["ends_on", "date", (r) => r.endsOn],
  ["status", "text", (r) => r.status],
  ["state", "text", (r) => r.state],
  ["year", "int4", (r) => r.year],
  ["procedure_type", "text", (r) => r.procedureType],
  ["contract_type", "text", (r) => r.contractType],
  ["supplier_size", "text", (r) => r.supplierSize]
])

/**
 * One batch as one statement (the inserts but the last in CTEs, parents first): PostgreSQL works on it
 * while the next batch is generated. Undefined for an empty batch.
 */
export const batchStatement = (batch: MarketBatch): readonly [string, ReadonlyArray<unknown>] | undefined => {
  const parts = [
    ...units(batch.units),
    ...suppliers(batch.suppliers),
    ...permits(batch.permits),
    ...risks(batch.risks),
    ...opportunities(batch.opportunities),
    ...awards(batch.awards)
  ]
  let first = 1
  const texts = parts.map((part) => {
    const text = part.text(first)
    first += part.params.length
    return text
  })
  const last = texts.pop()
  if (last === undefined) return undefined
  const ctes = texts.map((text, k) => `p${k} AS (${text})`)
  return [ctes.length === 0 ? last : `WITH ${ctes.join(", ")} ${last}`, parts.flatMap((part) => part.params)]
}

/** Every table of the data set: a load empties them all. */
export const MARKET_TABLES = [
  "market_awards",
  "market_opportunities",
  "market_risks",
  "market_permits",
  "market_suppliers",
  "market_units",
  "market_award_rollup",
  "market_dataset"
] as const
