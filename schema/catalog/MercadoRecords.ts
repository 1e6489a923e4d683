import { Schema } from "effect"
import { MexicoStateCode } from "../geo/MexicoStates.ts"
import { maxLength, minLength } from "../Length.ts"
import { Rfc } from "../tax/Rfc.ts"
import { AwardSummary, OpportunitySummary, PermitSummary, RiskRecord, SupplierSummary } from "./Mercado.ts"
import { cased, ContractType, Government, Id, Mxn, optional, PermitKind, ProcedureType, Ref, RiskList } from "./MercadoFields.ts"

const oneOf = (a: string, b: string) => (input: object) =>
  (a in input) !== (b in input) || { path: [a], message: `or ${b}: give exactly one of them` }

export const MarketGetSupplierInput = Schema.Struct({
  id: optional(Id, "The supplier's id, from market_search_suppliers"),
  rfc: optional(Rfc, "The supplier's RFC")
}).pipe(Schema.filter(oneOf("id", "rfc")))
export type MarketGetSupplierInput = typeof MarketGetSupplierInput.Type

const Figure = (description: string) => Mxn.annotations({ description })

export const SupplierAwards = Schema.Struct({
  ref: Ref,
  count: Schema.Int.annotations({ description: "Awards (contracts) won" }),
  total_amount: Figure("Sum of the awards' amounts, MXN"),
  average_amount: Schema.NullOr(Figure("Average award amount, MXN (null without awards)")),
  first_signed_on: Schema.NullOr(Schema.String),
  last_signed_on: Schema.NullOr(Schema.String)
})

export const MarketSupplier = Schema.Struct({
  ...SupplierSummary.fields,
  awards: SupplierAwards,
  risks: Schema.Array(RiskRecord).annotations({ description: "Its records on the risk lists, newest first (at most 50)" }),
  permits: Schema.Array(PermitSummary).annotations({ description: "Permits it holds, newest first (at most 50)" })
})
export type MarketSupplier = typeof MarketSupplier.Type

export const MarketGetOpportunityInput = Schema.Struct({
  id: optional(Id, "The procedure's id, from market_search_opportunities"),
  number: optional(
    cased("upper", Schema.String.pipe(minLength(5), maxLength(60))),
    "The procedure number, e.g. LA-019GYR047-E51-2025"
  )
}).pipe(Schema.filter(oneOf("id", "number")))
export type MarketGetOpportunityInput = typeof MarketGetOpportunityInput.Type

export const BuyingUnit = Schema.Struct({
  id: Schema.String,
  clave: Schema.String.annotations({ description: "CLAVEUC, the buying unit's key" }),
  name: Schema.String,
  agency: Schema.String,
  agency_name: Schema.String,
  government: Government,
  state: MexicoStateCode,
  state_name: Schema.String
})

export const MarketOpportunity = Schema.Struct({
  ...OpportunitySummary.fields,
  unit: BuyingUnit,
  awards: Schema.Array(AwardSummary).annotations({ description: "Its awards, newest first (at most 100)" }),
  awards_ref: Ref,
  awards_count: Schema.Int,
  awards_total_amount: Figure("Sum of its awards, MXN"),
  awards_average_amount: Schema.NullOr(Figure("Average of its awards, MXN (null without awards)"))
})
export type MarketOpportunity = typeof MarketOpportunity.Type

export const MarketCapabilitiesInput = Schema.Struct({})

const Counted = <A, I>(key: Schema.Schema<A, I>) => Schema.Struct({ value: key, count: Schema.Int })

export const MarketCapabilities = Schema.Struct({
  ref: Ref,
  dataset: Schema.Struct({
    seed: Schema.String.annotations({ description: "The seed the data set was generated from" }),
    loaded_at: Schema.String.annotations({ description: "When it was loaded (ISO-8601): the data is as of then" }),
    first_year: Schema.Int,
    last_year: Schema.Int
  }),
  counts: Schema.Struct({
    suppliers: Schema.Int,
    units: Schema.Int,
    opportunities: Schema.Int,
    awards: Schema.Int,
    permits: Schema.Int,
    risks: Schema.Int
  }),
  states: Schema.Array(Schema.Struct({ code: MexicoStateCode, name: Schema.String, suppliers: Schema.Int, awards: Schema.Int }))
    .annotations({ description: "The states present, with their suppliers and awards" }),
  procedure_types: Schema.Array(Counted(ProcedureType)).annotations({ description: "Awards by procedure type" }),
  contract_types: Schema.Array(Counted(ContractType)).annotations({ description: "Awards by contract type" }),
  permit_kinds: Schema.Array(Counted(PermitKind)),
  risk_lists: Schema.Array(Counted(RiskList)),
  sectors: Schema.Array(Counted(Schema.String)).annotations({ description: "Suppliers by sector" }),
  tools: Schema.Array(Schema.Struct({ tool: Schema.String, answers: Schema.String })).annotations({
    description: "Which tool answers which question"
  })
})
export type MarketCapabilities = typeof MarketCapabilities.Type
