import { Schema } from "effect"
import { ContractType, PermitKind, ProcedureType, RiskList } from "../../../schema/catalog/MercadoFields.ts"
import { MexicoStateCode } from "../../../schema/geo/MexicoStates.ts"
import type { Query } from "./Query.ts"

const Counted = <A, I>(value: Schema.Schema<A, I>) => Schema.Array(Schema.Struct({ value, count: Schema.Int }))

/** What the loaded data set holds, counted from its tables. */
export const Coverage = Schema.Struct({
  suppliers: Schema.Int,
  units: Schema.Int,
  opportunities: Schema.Int,
  awards: Schema.Int,
  permits: Schema.Int,
  risks: Schema.Int,
  states: Schema.Array(Schema.Struct({ code: MexicoStateCode, suppliers: Schema.Int, awards: Schema.Int })),
  procedure_types: Counted(ProcedureType),
  contract_types: Counted(ContractType),
  permit_kinds: Counted(PermitKind),
  risk_lists: Counted(RiskList),
  sectors: Counted(Schema.String)
})
export type Coverage = typeof Coverage.Type

const counted = (column: string, table: string, as: string) =>
  `(SELECT coalesce(json_agg(json_build_object('value', v, 'count', n) ORDER BY n DESC, v), '[]'::json)
    FROM (SELECT ${column} AS v, count(*)::int AS n FROM ${table} GROUP BY 1) c) AS ${as}`

export const coverageQuery: Query = {
  text: `SELECT
    (SELECT count(*)::int FROM market_suppliers) AS suppliers,
    (SELECT count(*)::int FROM market_units) AS units,
    (SELECT count(*)::int FROM market_opportunities) AS opportunities,
    (SELECT count(*)::int FROM market_awards) AS awards,
    (SELECT count(*)::int FROM market_permits) AS permits,
    (SELECT count(*)::int FROM market_risks) AS risks,
    (SELECT coalesce(json_agg(json_build_object('code', code, 'suppliers', suppliers, 'awards', awards) ORDER BY code), '[]'::json)
      FROM (SELECT coalesce(s.state, a.state) AS code, coalesce(s.n, 0) AS suppliers, coalesce(a.n, 0) AS awards
            FROM (SELECT state, count(*)::int AS n FROM market_suppliers GROUP BY state) s
            FULL JOIN (SELECT state, count(*)::int AS n FROM market_awards GROUP BY state) a ON a.state = s.state) st) AS states,
    ${counted("procedure_type", "market_awards", "procedure_types")},
    ${counted("contract_type", "market_awards", "contract_types")},
    ${counted("kind", "market_permits", "permit_kinds")},
    ${counted("list", "market_risks", "risk_lists")},
    ${counted("sector", "market_suppliers", "sectors")}`,
  params: []
}
