import { Schema } from "effect"
import { MexicoStateCode } from "../geo/MexicoStates.ts"
import { Rfc } from "../tax/Rfc.ts"
import {
  Average,
  AwardFigures,
  between,
  Count,
  MAX_SCREENED,
  Money,
  optional,
  Persona,
  ProcedureType,
  Ref,
  RiskList,
  RiskStatus,
  Severity,
  Share,
  SupplierId,
  SupplierSize,
  SupplierStatus,
  Top,
  Year,
  yearRange
} from "./MercadoAggregates.ts"

export const SupplierHistoryInput = Schema.Struct({
  supplier_id: optional(SupplierId, "The supplier's id"),
  rfc: optional(Rfc, "Or the supplier's RFC"),
  year_from: optional(Year, "Only awards signed in this year or later"),
  year_to: optional(Year, "Only awards signed in this year or earlier"),
  top_units: Top(20, 5, "buying units")
}).pipe(
  Schema.filter((input) => [
    (input.supplier_id === undefined) !== (input.rfc === undefined) ||
    { path: ["supplier_id"], message: "or rfc: give exactly one of them" },
    yearRange(input)
  ])
)
export type SupplierHistoryInput = typeof SupplierHistoryInput.Type

export const Finding = Schema.Struct({
  id: Schema.String,
  list: RiskList,
  status: RiskStatus,
  severity: Severity.annotations({
    description:
      "69-B definitivo critical; 69-B presunto and inhabilitación high; multa and SAT 69 medium; desvirtuado, sentencia favorable or ended info"
  }),
  in_force: Schema.Boolean.annotations({
    description: "false when cleared (desvirtuado, sentencia_favorable) or once its end date passed"
  }),
  rfc: Schema.String,
  name: Schema.String,
  authority: Schema.String,
  published_on: Schema.String,
  ends_on: Schema.NullOr(Schema.String),
  amount: Schema.NullOr(Money),
  detail: Schema.String
})
export type Finding = typeof Finding.Type

const SeverityCounts = Schema.Struct({
  critical: Schema.Int,
  high: Schema.Int,
  medium: Schema.Int,
  info: Schema.Int
})

export const SupplierHistoryOutput = Schema.Struct({
  ref: Ref,
  supplier: Schema.Struct({
    id: Schema.String,
    rfc: Schema.String,
    name: Schema.String,
    persona: Persona,
    state: MexicoStateCode,
    state_name: Schema.String,
    size: SupplierSize,
    status: SupplierStatus,
    sector: Schema.String
  }),
  ...AwardFigures,
  years_active: Count("Years with awards"),
  average_per_year: Average("total / years_active, MXN"),
  years: Schema.Array(Schema.Struct({ year: Schema.Int, ...AwardFigures, share: Share("This year's total of the supplier's total") }))
    .annotations({ description: "Years with awards, oldest first" }),
  top_units: Schema.Array(Schema.Struct({
    unit_id: Schema.String,
    name: Schema.String,
    agency: Schema.String,
    ...AwardFigures,
    share: Share("This unit's total of the supplier's total")
  })).annotations({ description: "The buying units that awarded the most, by total" }),
  procedures: Schema.Array(Schema.Struct({
    procedure_type: ProcedureType,
    ...AwardFigures,
    share_n: Share("This procedure's awards of the supplier's awards"),
    share: Share("This procedure's total of the supplier's total")
  })),
  risks: Schema.Struct({
    findings_total: Count("Risk records of this supplier"),
    highest_severity: Schema.NullOr(Severity),
    by_severity: SeverityCounts,
    findings: Schema.Array(Finding).annotations({ description: "Newest first" })
  })
}).annotations({ identifier: "MarketSupplierHistory" })
export type SupplierHistoryOutput = typeof SupplierHistoryOutput.Type

export const ScreenRisksInput = Schema.Struct({
  rfcs: optional(
    between(Schema.Array(Rfc), 1, MAX_SCREENED, "RFCs"),
    `RFCs to screen (up to ${MAX_SCREENED} with supplier_ids)`
  ),
  supplier_ids: optional(
    between(Schema.Array(SupplierId), 1, MAX_SCREENED, "supplier ids"),
    `Supplier ids to screen (up to ${MAX_SCREENED} with rfcs)`
  )
}).pipe(
  Schema.filter((input) => {
    const count = (input.rfcs?.length ?? 0) + (input.supplier_ids?.length ?? 0)
    return count === 0 ?
      { path: ["rfcs"], message: "or supplier_ids: give at least one to screen" }
      : count > MAX_SCREENED ?
      { path: ["rfcs"], message: `and supplier_ids together: at most ${MAX_SCREENED} to screen` }
      : true
  })
)
export type ScreenRisksInput = typeof ScreenRisksInput.Type

export const ScreenRisksOutput = Schema.Struct({
  ref: Ref,
  screened: Count("Distinct RFCs and suppliers screened"),
  flagged: Count("Of those, with a finding above info"),
  share_flagged: Share("flagged of screened"),
  by_severity: Schema.Struct({ ...SeverityCounts.fields, none: Schema.Int }).annotations({
    description: "Screened entries by their highest severity (none: no finding)"
  }),
  findings_total: Count("Findings of every entry"),
  flagged_awards_total: Count("Awards of the flagged suppliers"),
  flagged_amount_total: Money.annotations({ description: "Amount contracted with the flagged suppliers, MXN" }),
  flagged_amount_average: Average("flagged_amount_total per flagged entry"),
  results: Schema.Array(Schema.Struct({
    input: Schema.String.annotations({ description: "The RFC or supplier id as screened" }),
    rfc: Schema.NullOr(Schema.String),
    supplier_id: Schema.NullOr(Schema.String),
    name: Schema.NullOr(Schema.String),
    known_supplier: Schema.Boolean.annotations({ description: "Whether the RFC or id is a supplier of the data set" }),
    flagged: Schema.Boolean,
    highest_severity: Schema.NullOr(Severity),
    findings: Schema.Array(Finding),
    awards_total: Count("This supplier's awards"),
    amount_total: Money.annotations({ description: "Amount contracted with this supplier, MXN" })
  })).annotations({ description: "In the order given, each RFC or supplier once" })
}).annotations({ identifier: "MarketScreenRisks" })
export type ScreenRisksOutput = typeof ScreenRisksOutput.Type
