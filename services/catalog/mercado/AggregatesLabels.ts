import type { ContractType, GroupBy, Persona, ProcedureType, SupplierSize } from "../../../schema/catalog/MercadoAggregates.ts"
import { mexicoStateByCode } from "../../../schema/geo/MexicoStates.ts"
import { sha256 } from "../../Crypto.ts"

const CONTRACT_TYPES: Record<typeof ContractType.Type, string> = {
  adquisiciones: "Adquisiciones",
  servicios: "Servicios",
  obra_publica: "Obra pública",
  servicios_obra: "Servicios relacionados con la obra pública",
  arrendamientos: "Arrendamientos"
}

const PROCEDURE_TYPES: Record<typeof ProcedureType.Type, string> = {
  licitacion_publica: "Licitación pública",
  invitacion_tres: "Invitación a cuando menos tres personas",
  adjudicacion_directa: "Adjudicación directa"
}

const SIZES: Record<typeof SupplierSize.Type, string> = {
  micro: "Micro",
  pequena: "Pequeña",
  mediana: "Mediana",
  no_mipyme: "No MIPYME"
}

const PERSONAS: Record<typeof Persona.Type, string> = { moral: "Persona moral", fisica: "Persona física" }

const LABELS: Partial<Record<GroupBy | "size" | "persona", Readonly<Record<string, string>>>> = {
  contract_type: CONTRACT_TYPES,
  procedure_type: PROCEDURE_TYPES,
  supplier_size: SIZES,
  size: SIZES,
  persona: PERSONAS
}

export const stateName = (code: string) => mexicoStateByCode.get(code)?.name ?? code

/** How a group's key reads: a state's name, an enumeration's Spanish name, the key itself otherwise. */
export const labelOf = (dimension: GroupBy | "size" | "persona" | "sector", key: string): string =>
  dimension === "state" ? stateName(key) : (dimension === "sector" ? undefined : LABELS[dimension]?.[key]) ?? key

/** The ref of an aggregate: the tool and a digest of its decoded input (same question, same ref). */
export const refOf = (toolId: string, input: unknown) => `${toolId}:${sha256(`${toolId}\n${JSON.stringify(input)}`).slice(0, 16)}`
