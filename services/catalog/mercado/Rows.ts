import type { MarketSector } from "../../../schema/catalog/MarketSectors.ts"

/** The rows of the market_* tables as the generator makes them (dates ISO, amounts as decimal text). */
export type SupplierSize = "micro" | "pequena" | "mediana" | "no_mipyme"
export type ProcedureType = "licitacion_publica" | "invitacion_tres" | "adjudicacion_directa"
export type ContractType = "adquisiciones" | "servicios" | "obra_publica" | "servicios_obra" | "arrendamientos"
export type Government = "APF" | "GE" | "GM"

export interface SupplierRow {
  readonly id: string
  readonly rfc: string
  readonly persona: "moral" | "fisica"
  readonly name: string
  readonly state: string
  readonly size: SupplierSize
  readonly status: "habilitado" | "inhabilitado" | "suspendido"
  readonly rupcFolio: string | null
  readonly sector: MarketSector
  readonly registeredOn: string
}

export interface UnitRow {
  readonly id: string
  readonly clave: string
  readonly name: string
  readonly agency: string
  readonly agencyName: string
  readonly government: Government
  readonly state: string
}

export interface OpportunityRow {
  readonly id: string
  readonly number: string
  readonly unitId: string
  readonly title: string
  readonly procedureType: ProcedureType
  readonly law: "LAASSP" | "LOPSRM"
  readonly contractType: ContractType
  readonly character: "nacional" | "internacional" | "internacional_tlc"
  readonly form: "presencial" | "electronica" | "mixta"
  readonly state: string
  readonly status: "active" | "complete" | "cancelled" | "unsuccessful"
  readonly publishedOn: string
  readonly opensOn: string
  readonly awardedOn: string | null
  readonly estimatedAmount: string
}

export interface AwardRow {
  readonly id: string
  readonly opportunityId: string
  readonly supplierId: string
  readonly unitId: string
  readonly contractCode: string
  readonly title: string
  readonly amount: string
  readonly currency: "MXN"
  readonly signedOn: string
  readonly startsOn: string
  readonly endsOn: string
  readonly status: "activo" | "expirado" | "cancelado"
  readonly state: string
  readonly year: number
  readonly procedureType: ProcedureType
  readonly contractType: ContractType
  readonly supplierSize: SupplierSize
}

export interface PermitRow {
  readonly id: string
  readonly number: string
  readonly kind: "cre_petroliferos" | "repse" | "cofepris" | "semarnat"
  readonly authority: string
  readonly holderRfc: string
  readonly holderName: string
  readonly supplierId: string | null
  readonly state: string
  readonly status: "vigente" | "suspendido" | "cancelado" | "vencido"
  readonly issuedOn: string
  readonly expiresOn: string | null
}

export interface RiskRow {
  readonly id: string
  readonly rfc: string
  readonly name: string
  readonly supplierId: string | null
  readonly list: "sat_69b" | "sat_69" | "sancion"
  readonly status:
    | "presunto"
    | "desvirtuado"
    | "definitivo"
    | "sentencia_favorable"
    | "firmes"
    | "exigibles"
    | "no_localizados"
    | "cancelados"
    | "sentencias"
    | "multa"
    | "inhabilitacion"
  readonly authority: string
  readonly publishedOn: string
  readonly endsOn: string | null
  readonly amount: string | null
  readonly detail: string
}

/** One slice of the data set, inserted in this order (units, suppliers, permits, risks, opportunities, awards). */
export interface MarketBatch {
  readonly units: ReadonlyArray<UnitRow>
  readonly suppliers: ReadonlyArray<SupplierRow>
  readonly permits: ReadonlyArray<PermitRow>
  readonly risks: ReadonlyArray<RiskRow>
  readonly opportunities: ReadonlyArray<OpportunityRow>
  readonly awards: ReadonlyArray<AwardRow>
}
