import { Schema } from "effect"
import { MexicoState } from "../geo/MexicoStates.ts"
import { publishDecoded } from "../tools/JsonSchema.ts"
import { SectorInput } from "./MarketSectors.ts"

import { maxLength, minLength } from "../Length.ts"
import { ContractType, Persona, ProcedureType, RiskList, RiskStatus, SupplierSize, SupplierStatus } from "./MercadoFields.ts"

/** The enumerations of the Mercado tables (the CHECKs of migration 0016), one definition for every Mercado tool. */
export { ContractType, Persona, ProcedureType, RiskList, RiskStatus, SupplierSize, SupplierStatus }
export const Severity = Schema.Literal("critical", "high", "medium", "info")
export type Severity = typeof Severity.Type

export const MAX_SEGMENTS = 6
export const MAX_SCREENED = 100
export const FIRST_YEAR = 1990
export const LAST_YEAR = 2100

export const Year = Schema.Int.pipe(Schema.between(FIRST_YEAR, LAST_YEAR)).annotations({
  message: () => ({ message: `must be a year from ${FIRST_YEAR} to ${LAST_YEAR}`, override: true })
})

export const optional = <A, I>(schema: Schema.Schema<A, I>, description: string) =>
  Schema.optionalWith(schema, { exact: true }).annotations({ description })

export const between = <A, I>(array: Schema.Schema<ReadonlyArray<A>, ReadonlyArray<I>>, min: number, max: number, what: string) => {
  const message = { message: () => `must have ${min} to ${max} ${what}` }
  return array.pipe(Schema.minItems(min, message), Schema.maxItems(max, message))
}

const listOf = <A, I>(item: Schema.Schema<A, I>, max: number, description: string) =>
  optional(
    between(Schema.Array(item), 1, max, "values"),
    description
  )

export const SupplierId = Schema.String.pipe(minLength(1), maxLength(64)).annotations({
  description: "A supplier's id, as market_search_suppliers answers it"
})

export const Top = (max: number, fallback: number, what: string) =>
  Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, max)).annotations({
      description: `How many ${what} to list, 1–${max} (default ${fallback}); the rest are summed in "other"`,
      message: () => ({ message: `must be an integer from 1 to ${max}`, override: true })
    }),
    { default: () => fallback }
  )

/** The award filters every aggregate shares; state, year, contract type, procedure type and size are the rollup's dimensions. */
export const AwardFilterFields = {
  states: listOf(MexicoState, 32, "Only awards in these states (ISO code, INEGI number, name or alias)"),
  sizes: listOf(SupplierSize, 4, "Only awards to suppliers of these sizes"),
  contract_types: listOf(ContractType, 5, "Only these contract types"),
  procedure_types: listOf(ProcedureType, 3, "Only these procedure types"),
  year_from: optional(Year, "Only awards signed in this year or later"),
  year_to: optional(Year, "Only awards signed in this year or earlier"),
  sector: optional(SectorInput, "Only awards to suppliers of this sector (market_capabilities lists them)")
}

export const yearRange = (input: { readonly year_from?: number; readonly year_to?: number }) =>
  input.year_from === undefined || input.year_to === undefined || input.year_from <= input.year_to ||
  { path: ["year_to"], message: "must not be before year_from" }

export const AwardFilter = Schema.Struct(AwardFilterFields).pipe(Schema.filter(yearRange))
export type AwardFilter = typeof AwardFilter.Type

export const Ref = Schema.String.annotations({ description: "Cite every figure of this answer with this ref" })
export const Money = Schema.Number.annotations({ description: "MXN, rounded to 2 decimals" })
export const Average = (description: string) =>
  Schema.NullOr(Money).annotations({ description: `${description}; null when nothing was counted` })
export const Share = (description: string) =>
  Schema.NullOr(Schema.Number).annotations({ description: `${description}, in percent rounded to 1 decimal; null when the whole is 0` })
export const Count = (description: string) => Schema.Int.annotations({ description })

/** Awards counted, their amount summed and averaged. */
export const AwardFigures = {
  n: Count("Awards counted"),
  total: Schema.Number.annotations({ description: "Sum of the awards' amounts, MXN rounded to 2 decimals" }),
  average: Average("total / n: the average award, MXN")
}

export const CountBy = Schema.Literal("state", "size", "persona", "sector")

export const CountSuppliersInput = Schema.Struct({
  states: listOf(MexicoState, 32, "Only suppliers registered in these states (ISO code, INEGI number, name or alias)"),
  sizes: listOf(SupplierSize, 4, "Only suppliers of these sizes"),
  persona: optional(Persona, "Only personas morales (companies) or físicas (individuals)"),
  sector: optional(SectorInput, "Only suppliers of this sector (market_capabilities lists them)"),
  awarded_from: optional(Year, "Only suppliers with an award signed in this year or later; award figures count those years only"),
  awarded_to: optional(Year, "Only suppliers with an award signed in this year or earlier; award figures count those years only"),
  has_risk: optional(
    Schema.Boolean,
    "true: only suppliers with a risk finding in force (SAT 69-B, SAT 69, sanction; not desvirtuado, sentencia favorable or ended); false: only those without"
  ),
  by: Schema.optionalWith(CountBy, { default: () => "state" as const }).annotations({
    description: "Breakdown of the matches by state (default), size, persona or sector"
  }),
  top: Top(32, 10, "groups of the breakdown")
}).pipe(
  Schema.filter((input) =>
    input.awarded_from === undefined || input.awarded_to === undefined || input.awarded_from <= input.awarded_to ||
    { path: ["awarded_to"], message: "must not be before awarded_from" }
  )
)
export type CountSuppliersInput = typeof CountSuppliersInput.Type

const SupplierFigures = {
  total: Count("Suppliers in this group"),
  share: Share("This group's suppliers of all suppliers matched"),
  awards_total: Count("Awards of these suppliers"),
  amount_total: Money.annotations({ description: "Amount of these suppliers' awards, MXN" }),
  amount_average: Average("amount_total per supplier of this group, MXN")
}

export const CountSuppliersOutput = Schema.Struct({
  ref: Ref,
  total: Count("Suppliers that match the filters"),
  awards_total: Count("Awards of the matched suppliers (in awarded_from–awarded_to when given)"),
  amount_total: Money.annotations({ description: "Amount of those awards, MXN" }),
  awards_average: Schema.NullOr(Schema.Number).annotations({ description: "awards_total per matched supplier, 2 decimals" }),
  amount_average: Average("amount_total per matched supplier"),
  amount_average_per_award: Average("amount_total per award"),
  by: CountBy,
  groups: Schema.Array(Schema.Struct({ key: Schema.String, label: Schema.String, ...SupplierFigures })).annotations({
    description: "The largest groups by suppliers, then by key"
  }),
  other: Schema.NullOr(Schema.Struct({ groups: Count("Groups summed here"), ...SupplierFigures })).annotations({
    description: "The groups past top, summed: groups + other add up to the totals; null when none are left"
  })
}).annotations({ identifier: "MarketCountSuppliers" })
export type CountSuppliersOutput = typeof CountSuppliersOutput.Type

export const Segment = Schema.Struct({
  label: optional(
    publishDecoded(Schema.Trim.pipe(minLength(1), maxLength(60))),
    "A name for this segment (default: segment 1, 2, …)"
  ),
  ...AwardFilterFields
}).pipe(Schema.filter(yearRange))

export const CompareSegmentsInput = Schema.Struct({
  segments: between(Schema.Array(Segment), 2, MAX_SEGMENTS, "segments").annotations({
    description: `2 to ${MAX_SEGMENTS} segments, each a filter of awards`
  })
})
export type CompareSegmentsInput = typeof CompareSegmentsInput.Type

export const CompareSegmentsOutput = Schema.Struct({
  ref: Ref,
  ...AwardFigures,
  segments: Schema.Array(Schema.Struct({
    label: Schema.String,
    ...AwardFigures,
    suppliers: Count("Distinct suppliers awarded in this segment"),
    average_per_supplier: Average("total / suppliers, MXN"),
    share: Share("This segment's total of the combined total")
  })).annotations({ description: "In the order given; overlapping segments count an award in each (n, total, average above sum them so)" })
}).annotations({ identifier: "MarketCompareSegments" })
export type CompareSegmentsOutput = typeof CompareSegmentsOutput.Type

export const GroupBy = Schema.Literal("state", "year", "contract_type", "procedure_type", "supplier_size", "unit", "supplier")
export type GroupBy = typeof GroupBy.Type

export const AggregateAwardsInput = Schema.Struct({
  group_by: GroupBy.annotations({ description: "The dimension to sum the awards by" }),
  ...AwardFilterFields,
  unit_id: optional(
    Schema.String.pipe(minLength(1), maxLength(64)),
    "Only awards of this buying unit: its id (uc_…, the unit_id in the answers of market_search_awards and market_search_opportunities), not its CLAVEUC"
  ),
  supplier_id: optional(SupplierId, "Only awards to this supplier"),
  top: Top(50, 10, "groups")
}).pipe(Schema.filter(yearRange))
export type AggregateAwardsInput = typeof AggregateAwardsInput.Type

const GroupShare = Share("This group's total of the overall total")

export const AggregateAwardsOutput = Schema.Struct({
  ref: Ref,
  group_by: GroupBy,
  source: Schema.Literal("rollup", "awards").annotations({
    description: "rollup: read from the pre-summed awards (state × year × contract type × procedure type × size); awards: from the awards"
  }),
  ...AwardFigures,
  groups_total: Count("Groups with awards"),
  groups: Schema.Array(Schema.Struct({ key: Schema.String, label: Schema.String, ...AwardFigures, share: GroupShare })).annotations({
    description: "The largest groups by total, then by key"
  }),
  other: Schema.NullOr(Schema.Struct({ groups: Count("Groups summed here"), ...AwardFigures, share: GroupShare })).annotations({
    description: "The groups past top, summed: groups + other add up to n and total; null when none are left"
  })
}).annotations({ identifier: "MarketAggregateAwards" })
export type AggregateAwardsOutput = typeof AggregateAwardsOutput.Type
