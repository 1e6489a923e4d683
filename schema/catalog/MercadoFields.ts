import { Schema } from "effect"
import { maxLength, minLength } from "../Length.ts"
import { publishDecoded } from "../tools/JsonSchema.ts"
import { COUNT_CAP, MAX_LIMIT } from "./Empresas.ts"

export const Persona = Schema.Literal("moral", "fisica")
export const SupplierSize = Schema.Literal("micro", "pequena", "mediana", "no_mipyme").annotations({
  description: "CompraNet's stratification: micro, pequena (pequeña), mediana, no_mipyme (large)"
})
export const SupplierStatus = Schema.Literal("habilitado", "inhabilitado", "suspendido")
export const Government = Schema.Literal("APF", "GE", "GM").annotations({
  description: "APF federal administration, GE state government, GM municipal government"
})
export const ProcedureType = Schema.Literal("licitacion_publica", "invitacion_tres", "adjudicacion_directa").annotations({
  description: "licitacion_publica (open tender), invitacion_tres (invitation to at least three), adjudicacion_directa (direct award)"
})
export type ProcedureType = typeof ProcedureType.Type
export const Law = Schema.Literal("LAASSP", "LOPSRM").annotations({ description: "LAASSP goods and services, LOPSRM public works" })
export const ContractType = Schema.Literal("adquisiciones", "servicios", "obra_publica", "servicios_obra", "arrendamientos").annotations({
  description: "adquisiciones, servicios, obra_publica, servicios_obra (services related to public works), arrendamientos"
})
export type ContractType = typeof ContractType.Type
export const Character = Schema.Literal("nacional", "internacional", "internacional_tlc")
export const Form = Schema.Literal("presencial", "electronica", "mixta")
export const OpportunityStatus = Schema.Literal("active", "complete", "cancelled", "unsuccessful")
export const AwardStatus = Schema.Literal("activo", "expirado", "cancelado")
export const PermitKind = Schema.Literal("cre_petroliferos", "repse", "cofepris", "semarnat").annotations({
  description: "cre_petroliferos (CRE fuel permits), repse (specialized services registry), cofepris (sanitary), semarnat (environmental)"
})
export type PermitKind = typeof PermitKind.Type
export const PermitStatus = Schema.Literal("vigente", "suspendido", "cancelado", "vencido")
export const RiskList = Schema.Literal("sat_69b", "sat_69", "sancion").annotations({
  description:
    "sat_69b (SAT art. 69-B, simulated operations), sat_69 (SAT art. 69, non-compliant taxpayers), sancion (sanctioned suppliers)"
})
export type RiskList = typeof RiskList.Type
export const RISK_STATUSES = {
  sat_69b: ["presunto", "desvirtuado", "definitivo", "sentencia_favorable"],
  sat_69: ["firmes", "exigibles", "no_localizados", "cancelados", "sentencias"],
  sancion: ["multa", "inhabilitacion"]
} as const
export const RiskStatus = Schema.Literal(...RISK_STATUSES.sat_69b, ...RISK_STATUSES.sat_69, ...RISK_STATUSES.sancion).annotations({
  description: `By list: sat_69b ${RISK_STATUSES.sat_69b.join(", ")}; sat_69 ${RISK_STATUSES.sat_69.join(", ")}; sancion ${
    RISK_STATUSES.sancion.join(", ")
  }`
})
export type RiskStatus = typeof RiskStatus.Type
/** Statuses that clear a taxpayer: a record in them is no risk. */
export const CLEARED_STATUSES: ReadonlyArray<RiskStatus> = ["desvirtuado", "sentencia_favorable"]

/** Text trimmed and put in one case before `to` checks it. */
export const cased = (kase: "upper" | "lower", to: Schema.Schema<string>) =>
  publishDecoded(Schema.transform(Schema.String, to, {
    strict: true,
    decode: (text) => (kase === "upper" ? text.trim().toUpperCase() : text.trim().toLowerCase()),
    encode: (text) => text
  }))

export const Id = Schema.String.pipe(minLength(1), maxLength(64))

// an impossible day ("2025-13-45") makes an invalid Date, whose toISOString throws: compare its time first
const isDay = (text: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false
  const day = new Date(`${text}T00:00:00Z`)
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(text)
}
export const Day = Schema.String.pipe(
  Schema.filter(isDay, { message: () => "must be a date YYYY-MM-DD" })
).annotations({ description: "A date, YYYY-MM-DD" })

export const Year = Schema.Int.pipe(Schema.between(1990, 2100)).annotations({
  message: () => ({ message: "must be a year from 1990 to 2100", override: true })
})

export const Mxn = Schema.Number.pipe(Schema.finite(), Schema.nonNegative()).annotations({
  description: "An amount in Mexican pesos (MXN)"
})

export const Limit = Schema.optionalWith(
  Schema.Int.pipe(Schema.between(1, MAX_LIMIT)).annotations({
    description: `Results per page, 1–${MAX_LIMIT} (default 20)`,
    message: () => ({ message: `must be an integer from 1 to ${MAX_LIMIT}`, override: true })
  }),
  { default: () => 20 }
)

export const Cursor = Schema.optionalWith(
  Schema.String.pipe(maxLength(1000)).annotations({
    description: "The sealed cursor of the previous page of the same search (opaque, valid 30 minutes); omit it for the first page"
  }),
  { exact: true }
)

export const optional = <A, I>(schema: Schema.Schema<A, I>, description: string) =>
  Schema.optionalWith(schema, { exact: true }).annotations({ description })

export const Ref = Schema.String.annotations({ description: "Cite this result with this ref" })

/** What every search answers besides its rows. */
export const SearchFields = {
  search_id: Schema.String.annotations({ description: "Identifies this search (same filters → same id)" }),
  ref: Ref,
  total: Schema.Int.annotations({ description: `Matches, counted up to ${COUNT_CAP.toLocaleString("en-US")}` }),
  total_is_lower_bound: Schema.Boolean.annotations({
    description: `true when more than ${COUNT_CAP.toLocaleString("en-US")} match: total is a lower bound`
  }),
  cursor: Schema.NullOr(Schema.String).annotations({
    description: "Send it as cursor (with the same filters) for the next page; null on the last page"
  })
}

/** A range's ends in order, or the issue that says they are not (for `Schema.filter`). */
export const inOrder = <T extends string | number>(from: T | undefined, to: T | undefined, path: string, message: string) =>
  from === undefined || to === undefined || from <= to || { path: [path], message }
