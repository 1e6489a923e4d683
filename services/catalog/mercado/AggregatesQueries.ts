import type { AwardFilter, CountSuppliersInput, GroupBy } from "../../../schema/catalog/MercadoAggregates.ts"
import { atRiskSql } from "./InForce.ts"

export interface Query {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

/** An award filter with the base-table-only narrowing the aggregate tool adds. */
export interface AwardScope extends AwardFilter {
  readonly unit_id?: string
  readonly supplier_id?: string
}

export type Source = "rollup" | "awards"

const ROLLUP_DIMENSIONS: ReadonlySet<GroupBy> = new Set(["state", "year", "contract_type", "procedure_type", "supplier_size"])

/** Whether the pre-summed rollup answers this question: its dimensions only, in the grouping and the filters. */
export const sourceFor = (groupBy: GroupBy, scope: AwardScope): Source =>
  ROLLUP_DIMENSIONS.has(groupBy) && scope.sector === undefined && scope.unit_id === undefined && scope.supplier_id === undefined
    ? "rollup"
    : "awards"

/** Collects parameters; `add` answers the placeholder of the value. */
const parameters = () => {
  const params: Array<unknown> = []
  return {
    params,
    add: (value: unknown) => {
      params.push(value)
      return `$${params.length}`
    }
  }
}
type Add = ReturnType<typeof parameters>["add"]

const where = (clauses: ReadonlyArray<string>) => (clauses.length === 0 ? "" : `WHERE ${clauses.join(" AND ")}`)

/** The clauses of an award filter over the rollup's dimension columns (rollup or awards, same names) and the base-only ones. */
const awardClauses = (f: AwardScope, add: Add, on: string) => {
  const clauses: Array<string> = []
  const any = (column: string, values: ReadonlyArray<string> | undefined) => {
    if (values !== undefined) clauses.push(`${on}${column} = ANY(${add(values)}::text[])`)
  }
  any("state", f.states)
  any("supplier_size", f.sizes)
  any("contract_type", f.contract_types)
  any("procedure_type", f.procedure_types)
  if (f.year_from !== undefined) clauses.push(`${on}year >= ${add(f.year_from)}`)
  if (f.year_to !== undefined) clauses.push(`${on}year <= ${add(f.year_to)}`)
  if (f.sector !== undefined) clauses.push(`s.sector = ${add(f.sector)}`)
  if (f.unit_id !== undefined) clauses.push(`${on}unit_id = ${add(f.unit_id)}`)
  if (f.supplier_id !== undefined) clauses.push(`${on}supplier_id = ${add(f.supplier_id)}`)
  return clauses
}

const awardsFrom = (f: AwardScope) =>
  f.sector === undefined ? "market_awards a" : "market_awards a JOIN market_suppliers s ON s.id = a.supplier_id"

const BASE_KEY: Record<GroupBy, string> = {
  state: "a.state",
  year: "a.year::text",
  contract_type: "a.contract_type",
  procedure_type: "a.procedure_type",
  supplier_size: "a.supplier_size",
  unit: "a.unit_id",
  supplier: "a.supplier_id"
}

/**
 * The awards summed by one dimension, the `top` largest groups, each row also carrying the overall
 * figures and how many groups there are (window functions run before the LIMIT).
 */
export const groupedAwards = (source: Source, groupBy: GroupBy, f: AwardScope, top: number): Query => {
  const { add, params } = parameters()
  const grouped = source === "rollup"
    ? `SELECT ${groupBy === "year" ? "year::text" : groupBy} AS key, sum(awards) AS n, sum(amount) AS amount
       FROM market_award_rollup ${where(awardClauses(f, add, ""))} GROUP BY 1`
    : `SELECT ${BASE_KEY[groupBy]} AS key, count(*) AS n, sum(a.amount) AS amount
       FROM ${awardsFrom(f)} ${where(awardClauses(f, add, "a."))} GROUP BY 1`
  return {
    text: `WITH g AS (${grouped})
           SELECT key, n::int AS n, amount::text AS amount, count(*) OVER ()::int AS groups,
                  (sum(n) OVER ())::int AS all_n, (sum(amount) OVER ())::text AS all_amount
           FROM g ORDER BY g.amount DESC, key LIMIT ${add(top)}`,
    params
  }
}

export const unitNames = (ids: ReadonlyArray<string>): Query => ({
  text: `SELECT id AS key, name AS label FROM market_units WHERE id = ANY($1::text[])`,
  params: [ids]
})

export const supplierNames = (ids: ReadonlyArray<string>): Query => ({
  text: `SELECT id AS key, name || ' (' || rfc || ')' AS label FROM market_suppliers WHERE id = ANY($1::text[])`,
  params: [ids]
})

/** One segment's awards: how many, their amount, and how many distinct suppliers. */
export const segment = (f: AwardFilter): Query => {
  const { add, params } = parameters()
  return {
    text: `SELECT count(*)::int AS n, coalesce(sum(a.amount), 0)::text AS amount, count(DISTINCT a.supplier_id)::int AS suppliers
           FROM ${awardsFrom(f)} ${where(awardClauses(f, add, "a."))}`,
    params
  }
}

const COUNT_KEY = { state: "state", size: "size", persona: "persona", sector: "sector" } as const

/**
 * Suppliers matched, by one of their columns, with their awards summed. With a year range only
 * suppliers awarded in it count (and only those years' awards); without it every supplier matched
 * counts, awarded or not.
 */
export const suppliersCount = (f: CountSuppliersInput, today: string): Query => {
  const { add, params } = parameters()
  const suppliers: Array<string> = []
  if (f.states !== undefined) suppliers.push(`s.state = ANY(${add(f.states)}::text[])`)
  if (f.sizes !== undefined) suppliers.push(`s.size = ANY(${add(f.sizes)}::text[])`)
  if (f.persona !== undefined) suppliers.push(`s.persona = ${add(f.persona)}`)
  if (f.sector !== undefined) suppliers.push(`s.sector = ${add(f.sector)}`)
  if (f.has_risk !== undefined) {
    const exists = atRiskSql(add(today))
    suppliers.push(f.has_risk ? exists : `NOT ${exists}`)
  }
  const years: Array<string> = []
  if (f.awarded_from !== undefined) years.push(`a.year >= ${add(f.awarded_from)}`)
  if (f.awarded_to !== undefined) years.push(`a.year <= ${add(f.awarded_to)}`)
  const ranged = f.awarded_from !== undefined || f.awarded_to !== undefined
  return {
    text: `WITH s AS (SELECT s.id, s.${COUNT_KEY[f.by]} AS key FROM market_suppliers s ${where(suppliers)}),
           a AS (SELECT a.supplier_id, count(*) AS n, sum(a.amount) AS amount
                 FROM market_awards a JOIN s ON s.id = a.supplier_id ${where(years)} GROUP BY a.supplier_id)
           SELECT s.key, count(*)::int AS suppliers, coalesce(sum(a.n), 0)::int AS n, coalesce(sum(a.amount), 0)::text AS amount
           FROM s ${ranged ? "JOIN" : "LEFT JOIN"} a ON a.supplier_id = s.id
           GROUP BY s.key ORDER BY count(*) DESC, s.key`,
    params
  }
}

const SUPPLIER_COLUMNS = "id, rfc, name, persona, state, size, status, sector"

export const supplierBy = (column: "id" | "rfc", value: string): Query => ({
  text: `SELECT ${SUPPLIER_COLUMNS} FROM market_suppliers WHERE ${column} = $1`,
  params: [value]
})

export const suppliersBy = (column: "id" | "rfc", values: ReadonlyArray<string>): Query => ({
  text: `SELECT ${SUPPLIER_COLUMNS} FROM market_suppliers WHERE ${column} = ANY($1::text[])`,
  params: [values]
})

const historyScope = (supplierId: string, from: number | undefined, to: number | undefined) => {
  const { add, params } = parameters()
  const clauses = [`a.supplier_id = ${add(supplierId)}`]
  if (from !== undefined) clauses.push(`a.year >= ${add(from)}`)
  if (to !== undefined) clauses.push(`a.year <= ${add(to)}`)
  return { add, params, filter: where(clauses) }
}

/** One supplier's awards summed by year, by procedure type, or by buying unit (the `top` largest). */
export const supplierAwardsBy = (
  by: "year" | "procedure_type" | "unit",
  supplierId: string,
  from: number | undefined,
  to: number | undefined,
  top: number
): Query => {
  const { add, filter, params } = historyScope(supplierId, from, to)
  const sums = "count(*)::int AS n, sum(a.amount)::text AS amount"
  if (by === "unit") {
    return {
      text: `SELECT a.unit_id AS key, u.name, u.agency_name AS agency, ${sums}
             FROM market_awards a JOIN market_units u ON u.id = a.unit_id ${filter}
             GROUP BY a.unit_id, u.name, u.agency_name ORDER BY sum(a.amount) DESC, a.unit_id LIMIT ${add(top)}`,
      params
    }
  }
  const key = by === "year" ? "a.year::text" : "a.procedure_type"
  return { text: `SELECT ${key} AS key, ${sums} FROM market_awards a ${filter} GROUP BY 1 ORDER BY 1`, params }
}

export const risksOf = (rfcs: ReadonlyArray<string>, supplierIds: ReadonlyArray<string>): Query => ({
  text: `SELECT id, rfc, name, supplier_id, list, status, authority, published_on::text AS published_on,
                ends_on::text AS ends_on, amount::text AS amount, detail
         FROM market_risks WHERE rfc = ANY($1::text[]) OR supplier_id = ANY($2::text[])
         ORDER BY published_on DESC, id`,
  params: [rfcs, supplierIds]
})

export const awardsOfSuppliers = (supplierIds: ReadonlyArray<string>): Query => ({
  text: `SELECT supplier_id AS key, count(*)::int AS n, sum(amount)::text AS amount
         FROM market_awards WHERE supplier_id = ANY($1::text[]) GROUP BY supplier_id`,
  params: [supplierIds]
})
