import { Schema } from "effect"
import { MexicoState, MexicoStateCode } from "../geo/MexicoStates.ts"
import { maxLength, minLength } from "../Length.ts"
import { Rfc } from "../tax/Rfc.ts"
import { Words } from "./Empresas.ts"
import { SectorInput } from "./MarketSectors.ts"
import {
  AwardStatus,
  cased,
  Character,
  ContractType,
  Cursor,
  Day,
  Form,
  Id,
  inOrder,
  Law,
  Limit,
  Mxn,
  OpportunityStatus,
  optional,
  PermitKind,
  PermitStatus,
  Persona,
  ProcedureType,
  Ref,
  RISK_STATUSES,
  RiskList,
  RiskStatus,
  SearchFields,
  SupplierSize,
  SupplierStatus,
  Year
} from "./MercadoFields.ts"

const Clave = cased(
  "upper",
  Schema.String.pipe(Schema.pattern(/^[0-9A-Z]{5,12}$/)).annotations({
    message: () => ({ message: "must be a buying unit's key (CLAVEUC), e.g. 019GYR047", override: true })
  })
)
const Agency = cased("upper", Schema.String.pipe(minLength(2), maxLength(20)))

export const MarketSearchSuppliersInput = Schema.Struct({
  q: Words("Words of the supplier's name; case and accents are ignored (construccion finds Construcción)"),
  state: optional(MexicoState, "Only suppliers of this state"),
  size: optional(SupplierSize, "Only this size"),
  sector: optional(SectorInput, "Only this sector (market_capabilities lists them)"),
  rfc: optional(Rfc, "The supplier with this RFC"),
  has_risk: optional(
    Schema.Boolean,
    "true: only suppliers with a risk finding in force today (SAT 69-B, SAT 69, sanction; not desvirtuado, sentencia favorable or ended); false: only those without"
  ),
  limit: Limit,
  cursor: Cursor
})
export type MarketSearchSuppliersInput = typeof MarketSearchSuppliersInput.Type

export const SupplierSummary = Schema.Struct({
  id: Schema.String,
  ref: Ref,
  rfc: Schema.String,
  persona: Persona,
  name: Schema.String,
  state: MexicoStateCode,
  state_name: Schema.String,
  size: SupplierSize,
  status: SupplierStatus,
  sector: Schema.String,
  rupc_folio: Schema.NullOr(Schema.String),
  registered_on: Schema.String,
  has_risk: Schema.Boolean.annotations({
    description:
      "A risk finding in force today: on a list (SAT 69-B, SAT 69, sanction), not cleared and not ended (details in market_get_supplier)"
  })
})
export type SupplierSummary = typeof SupplierSummary.Type

export const MarketSearchSuppliersOutput = Schema.Struct({ ...SearchFields, suppliers: Schema.Array(SupplierSummary) })

export const MarketSearchOpportunitiesInput = Schema.Struct({
  q: Words("Words of the procedure's title; case and accents are ignored"),
  state: optional(MexicoState, "Only procedures of this state"),
  unit: optional(Clave, "Only procedures of this buying unit (its CLAVEUC, e.g. 019GYR047)"),
  agency: optional(Agency, "Only procedures of this agency (its acronym, e.g. IMSS)"),
  procedure_type: optional(ProcedureType, "Only this procedure type"),
  contract_type: optional(ContractType, "Only this contract type"),
  status: optional(OpportunityStatus, "Only this status"),
  published_from: optional(Day, "Published on or after this date"),
  published_to: optional(Day, "Published on or before this date"),
  limit: Limit,
  cursor: Cursor
}).pipe(
  Schema.filter((i) => inOrder(i.published_from, i.published_to, "published_to", "must not be before published_from"))
)
export type MarketSearchOpportunitiesInput = typeof MarketSearchOpportunitiesInput.Type

export const OpportunitySummary = Schema.Struct({
  id: Schema.String,
  ref: Ref,
  number: Schema.String.annotations({ description: "The procedure number, e.g. LA-019GYR047-E51-2025" }),
  title: Schema.String,
  unit_id: Schema.String,
  unit_clave: Schema.String,
  unit_name: Schema.String,
  agency: Schema.String,
  procedure_type: ProcedureType,
  law: Law,
  contract_type: ContractType,
  character: Character,
  form: Form,
  state: MexicoStateCode,
  state_name: Schema.String,
  status: OpportunityStatus,
  published_on: Schema.String,
  opens_on: Schema.String,
  awarded_on: Schema.NullOr(Schema.String),
  estimated_amount: Mxn
})
export type OpportunitySummary = typeof OpportunitySummary.Type

export const MarketSearchOpportunitiesOutput = Schema.Struct({ ...SearchFields, opportunities: Schema.Array(OpportunitySummary) })

export const MarketSearchAwardsInput = Schema.Struct({
  supplier_id: optional(Id, "Only awards of this supplier (its id)"),
  rfc: optional(Rfc, "Only awards of the supplier with this RFC"),
  unit: optional(Clave, "Only awards of this buying unit (its CLAVEUC)"),
  state: optional(MexicoState, "Only awards of this state"),
  year: optional(Year, "Only awards signed in this year"),
  signed_from: optional(Day, "Signed on or after this date"),
  signed_to: optional(Day, "Signed on or before this date"),
  amount_min: optional(Mxn, "At least this amount (MXN)"),
  amount_max: optional(Mxn, "At most this amount (MXN)"),
  procedure_type: optional(ProcedureType, "Only this procedure type"),
  contract_type: optional(ContractType, "Only this contract type"),
  limit: Limit,
  cursor: Cursor
}).pipe(
  Schema.filter((i) => [
    i.supplier_id === undefined || i.rfc === undefined || { path: ["rfc"], message: "or supplier_id: give one of them, not both" },
    i.year === undefined || (i.signed_from === undefined && i.signed_to === undefined) ||
    { path: ["year"], message: "or signed_from/signed_to: give one of them, not both" },
    inOrder(i.signed_from, i.signed_to, "signed_to", "must not be before signed_from"),
    inOrder(i.amount_min, i.amount_max, "amount_max", "must not be below amount_min")
  ])
)
export type MarketSearchAwardsInput = typeof MarketSearchAwardsInput.Type

export const AwardSummary = Schema.Struct({
  id: Schema.String,
  ref: Ref,
  contract_code: Schema.String,
  title: Schema.String,
  amount: Mxn,
  currency: Schema.Literal("MXN"),
  signed_on: Schema.String,
  starts_on: Schema.String,
  ends_on: Schema.String,
  status: AwardStatus,
  state: MexicoStateCode,
  state_name: Schema.String,
  year: Schema.Int,
  procedure_type: ProcedureType,
  contract_type: ContractType,
  supplier_id: Schema.String,
  supplier_rfc: Schema.String,
  supplier_name: Schema.String,
  supplier_size: SupplierSize,
  unit_id: Schema.String,
  unit_clave: Schema.String,
  unit_name: Schema.String,
  opportunity_id: Schema.String,
  opportunity_number: Schema.String
})
export type AwardSummary = typeof AwardSummary.Type

export const MarketSearchAwardsOutput = Schema.Struct({ ...SearchFields, awards: Schema.Array(AwardSummary) })

export const MarketSearchPermitsInput = Schema.Struct({
  kind: optional(PermitKind, "Only this kind of permit"),
  state: optional(MexicoState, "Only permits of this state"),
  rfc: optional(Rfc, "Only permits held by this RFC"),
  status: optional(PermitStatus, "Only this status"),
  q: Words("Words of the holder's name or of the permit number; case and accents are ignored"),
  limit: Limit,
  cursor: Cursor
})
export type MarketSearchPermitsInput = typeof MarketSearchPermitsInput.Type

export const PermitSummary = Schema.Struct({
  id: Schema.String,
  ref: Ref,
  number: Schema.String,
  kind: PermitKind,
  authority: Schema.String,
  holder_rfc: Schema.String,
  holder_name: Schema.String,
  supplier_id: Schema.NullOr(Schema.String),
  state: MexicoStateCode,
  state_name: Schema.String,
  status: PermitStatus,
  issued_on: Schema.String,
  expires_on: Schema.NullOr(Schema.String)
})
export type PermitSummary = typeof PermitSummary.Type

export const MarketSearchPermitsOutput = Schema.Struct({ ...SearchFields, permits: Schema.Array(PermitSummary) })

const statusOfList = (i: { readonly list?: RiskList; readonly status?: RiskStatus }) => {
  if (i.list === undefined || i.status === undefined) return true
  const statuses: ReadonlyArray<string> = RISK_STATUSES[i.list]
  return statuses.includes(i.status) || { path: ["status"], message: `must be one of ${statuses.join(", ")} for ${i.list} records` }
}

export const MarketSearchRisksInput = Schema.Struct({
  rfc: optional(Rfc, "Only records of this RFC"),
  list: optional(RiskList, "Only this list"),
  status: optional(RiskStatus, "Only this status"),
  q: Words("Words of the taxpayer's name; case and accents are ignored"),
  limit: Limit,
  cursor: Cursor
}).pipe(Schema.filter(statusOfList))
export type MarketSearchRisksInput = typeof MarketSearchRisksInput.Type

export const RiskRecord = Schema.Struct({
  id: Schema.String,
  ref: Ref,
  rfc: Schema.String,
  name: Schema.String,
  supplier_id: Schema.NullOr(Schema.String),
  list: RiskList,
  status: RiskStatus,
  cleared: Schema.Boolean.annotations({ description: "true when the status clears the taxpayer (desvirtuado, sentencia_favorable)" }),
  authority: Schema.String,
  published_on: Schema.String,
  ends_on: Schema.NullOr(Schema.String),
  amount: Schema.NullOr(Mxn),
  detail: Schema.String
})
export type RiskRecord = typeof RiskRecord.Type

export const MarketSearchRisksOutput = Schema.Struct({ ...SearchFields, risks: Schema.Array(RiskRecord) })
