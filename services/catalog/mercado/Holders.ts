import type { MarketSector } from "../../../schema/catalog/MarketSectors.ts"
import { makePrng, type NonEmpty, type Prng } from "../../upstream/Prng.ts"
import { AS_OF_DAY, dayOf, FIRST_DAY, isoOf } from "./Calendar.ts"
import { type Identity, identityAt } from "./Identity.ts"
import type { MarketIds } from "./Ids.ts"
import type { PermitRow, RiskRow, SupplierRow } from "./Rows.ts"

type PermitKind = PermitRow["kind"]
type RiskStatus = RiskRow["status"]

const AUTHORITY: Record<PermitKind, string> = {
  cre_petroliferos: "Comisión Reguladora de Energía",
  repse: "Secretaría del Trabajo y Previsión Social",
  cofepris: "Comisión Federal para la Protección contra Riesgos Sanitarios",
  semarnat: "Secretaría de Medio Ambiente y Recursos Naturales"
}

/** Which permits a supplier of each sector may hold, with the chance of holding each. */
const PERMITS_BY_SECTOR: Record<MarketSector, ReadonlyArray<readonly [PermitKind, number]>> = {
  combustibles: [["cre_petroliferos", 0.7], ["semarnat", 0.1]],
  limpieza: [["repse", 0.5], ["semarnat", 0.05]],
  seguridad: [["repse", 0.6]],
  mantenimiento: [["repse", 0.45]],
  consultoria: [["repse", 0.3]],
  medicamentos: [["cofepris", 0.6]],
  equipo_medico: [["cofepris", 0.55]],
  construccion: [["semarnat", 0.25], ["repse", 0.2]],
  alimentos: [["cofepris", 0.25]],
  tecnologia: [["repse", 0.08]],
  papeleria: [],
  vehiculos: [["repse", 0.05]]
}

const FIRST_PERMIT_DAY = dayOf("2008-01-01")
const SAB_DAY = dayOf("2025-01-01")
const YEAR = 365

const permitNumber = (kind: PermitKind, ordinal: number, year: number, sector: MarketSector) => {
  switch (kind) {
    case "cre_petroliferos":
      return `PL/${ordinal + 1000}/EXP/ES/${year}`
    case "repse":
      return `AR${String(ordinal).padStart(6, "0")}/${year}`
    case "cofepris":
      return `${ordinal}${sector === "medicamentos" ? "M" : sector === "alimentos" ? "A" : "E"}${year} SSA`
    case "semarnat":
      return `SGPA/DGIRA/DG/${ordinal}/${year}`
  }
}

const lifetime = (prng: Prng, kind: PermitKind): number | null => {
  switch (kind) {
    case "cre_petroliferos":
      return 30 * YEAR
    case "repse":
      return 3 * YEAR
    case "cofepris":
      return 5 * YEAR
    case "semarnat":
      return prng.chance(0.5) ? prng.int(1, 10) * YEAR : null
  }
}

const permitOf = (
  ids: MarketIds,
  prng: Prng,
  holder: Identity,
  holderIndex: number,
  k: number,
  kind: PermitKind,
  supplierId: string | null
): PermitRow => {
  const ordinal = holderIndex * 3 + k + 1
  const issued = prng.int(Math.max(FIRST_PERMIT_DAY, holder.born + 30), AS_OF_DAY - 5)
  const life = lifetime(prng, kind)
  const expires = life === null ? null : issued + life
  const status = expires !== null && expires < AS_OF_DAY
    ? "vencido"
    : prng.weighted<PermitRow["status"]>([["vigente", 88], ["suspendido", 6], ["cancelado", 6]])
  return {
    id: ids.permit(ordinal),
    number: permitNumber(kind, ordinal, Number(isoOf(issued).slice(0, 4)), holder.sector),
    kind,
    authority: AUTHORITY[kind],
    holderRfc: holder.rfc,
    holderName: holder.name,
    supplierId,
    state: holder.state,
    status,
    issuedOn: isoOf(issued),
    expiresOn: expires === null ? null : isoOf(expires)
  }
}

const SAT_69B: NonEmpty<readonly [RiskStatus, number]> = [["definitivo", 70], ["presunto", 15], ["desvirtuado", 10], [
  "sentencia_favorable",
  5
]]
const SAT_69: NonEmpty<readonly [RiskStatus, number]> = [["firmes", 35], ["exigibles", 20], ["no_localizados", 25], ["cancelados", 12], [
  "sentencias",
  8
]]
const STATUS_69B: Partial<Record<RiskStatus, string>> = {
  definitivo: "definitivo: sus comprobantes fiscales no producen efecto fiscal alguno",
  presunto: "presunto: se presume la inexistencia de las operaciones amparadas en sus comprobantes",
  desvirtuado: "desvirtuó los hechos que se le imputaron",
  sentencia_favorable: "obtuvo sentencia favorable"
}
const STATUS_69: Partial<Record<RiskStatus, string>> = {
  firmes: "crédito fiscal firme",
  exigibles: "crédito fiscal exigible no pagado ni garantizado",
  no_localizados: "contribuyente no localizado en su domicilio fiscal",
  cancelados: "crédito fiscal cancelado",
  sentencias: "sentencia condenatoria por delito fiscal"
}
const AGENCY_NAMES: NonEmpty<string> = ["IMSS", "ISSSTE", "PEMEX", "CFE", "SEDENA", "SEP", "SICT", "CONAGUA", "SSA", "CAPUFE"]

const money = (n: number) => (Math.max(1000, Math.round(n * 100) / 100)).toFixed(2)

export type RiskList = RiskRow["list"]

const riskOf = (ids: MarketIds, prng: Prng, holder: Identity, ordinal: number, list: RiskList, supplierId: string | null): RiskRow => {
  const published = prng.int(Math.max(FIRST_DAY, holder.born + 200), AS_OF_DAY - 3)
  const year = isoOf(published).slice(0, 4)
  const base = { id: ids.risk(ordinal), rfc: holder.rfc, name: holder.name, supplierId, list, publishedOn: isoOf(published) }
  if (list === "sat_69b") {
    const status = prng.weighted(SAT_69B)
    const oficio = `500-05-${year}-${prng.int(1000, 39999)}`
    return {
      ...base,
      status,
      authority: "Servicio de Administración Tributaria",
      endsOn: null,
      amount: null,
      detail: `Artículo 69-B CFF, oficio ${oficio}: ${STATUS_69B[status] ?? status}`
    }
  }
  if (list === "sat_69") {
    const status = prng.weighted(SAT_69)
    const owed = status === "firmes" || status === "exigibles" || status === "cancelados"
    return {
      ...base,
      status,
      authority: "Servicio de Administración Tributaria",
      endsOn: null,
      amount: owed ? money(prng.logNormal(180_000, 1.2)) : null,
      detail: `Artículo 69 CFF: ${STATUS_69[status] ?? status}`
    }
  }
  const authority = published >= SAB_DAY ? "Secretaría Anticorrupción y Buen Gobierno" : "Secretaría de la Función Pública"
  const expediente = `SAN/${prng.int(100, 9999)}/${year}`
  const agency = prng.pick(AGENCY_NAMES)
  if (prng.chance(0.6)) {
    return {
      ...base,
      status: "multa",
      authority,
      endsOn: null,
      amount: money(prng.logNormal(150_000, 1.1)),
      detail: `Expediente ${expediente}: multa por incumplimiento de contrato con ${agency}`
    }
  }
  const months = prng.int(3, 60)
  return {
    ...base,
    status: "inhabilitacion",
    authority,
    endsOn: isoOf(published + Math.round(months * 30.44)),
    amount: null,
    detail: `Expediente ${expediente}: inhabilitación de ${months} meses para contratar con dependencias y entidades (${agency})`
  }
}

export interface GeneratedSupplier {
  readonly supplier: SupplierRow
  readonly permits: ReadonlyArray<PermitRow>
  readonly risks: ReadonlyArray<RiskRow>
}

/** Supplier `index` of the data set of `seed`: its row, its permits, its entries on the risk lists. */
export const supplierAt = (seed: string, ids: MarketIds, index: number): GeneratedSupplier => {
  const prng = makePrng(`${seed}/supplier/${index}`)
  const holder = identityAt(seed, index, prng)
  const id = ids.supplier(index)
  const permits: Array<PermitRow> = []
  for (const [kind, chance] of PERMITS_BY_SECTOR[holder.sector]) {
    if (prng.chance(chance)) permits.push(permitOf(ids, prng, holder, index, permits.length, kind, id))
  }
  const risks: Array<RiskRow> = []
  if (prng.chance(0.005)) risks.push(riskOf(ids, prng, holder, index * 4 + risks.length, "sat_69b", id))
  if (prng.chance(0.012)) risks.push(riskOf(ids, prng, holder, index * 4 + risks.length, "sat_69", id))
  if (prng.chance(0.002)) risks.push(riskOf(ids, prng, holder, index * 4 + risks.length, "sancion", id))
  const barred = risks.some((r) => r.status === "inhabilitacion" && r.endsOn !== null && r.endsOn > isoOf(AS_OF_DAY))
  const registered = Math.min(AS_OF_DAY - 30, Math.max(holder.born + prng.int(60, 900), dayOf("2009-01-01") + prng.int(0, 4000)))
  return {
    supplier: {
      id,
      rfc: holder.rfc,
      persona: holder.persona,
      name: holder.name,
      state: holder.state,
      size: holder.size,
      status: barred ? "inhabilitado" : prng.chance(0.012) ? "suspendido" : "habilitado",
      rupcFolio: prng.chance(0.75) ? String(prng.int(10_000, 399_999)) : null,
      sector: holder.sector,
      registeredOn: isoOf(registered)
    },
    permits,
    risks
  }
}

/** Someone who sells nothing to the government but holds permits (mostly fuel stations) or sits on a risk list. */
export const outsiderAt = (seed: string, ids: MarketIds, index: number, kind: "permits" | "risk") => {
  const prng = makePrng(`${seed}/outsider/${index}`)
  if (kind === "permits") {
    const holder = identityAt(seed, index, prng, prng.chance(0.7) ? "combustibles" : undefined)
    const permitKind: PermitKind = holder.sector === "combustibles"
      ? "cre_petroliferos"
      : prng.weighted<PermitKind>([["repse", 5], ["cofepris", 3], ["semarnat", 2]])
    const count = permitKind === "cre_petroliferos" ? prng.int(1, 3) : 1
    return {
      permits: Array.from({ length: count }, (_, k) => permitOf(ids, prng, holder, index, k, permitKind, null)),
      risks: []
    }
  }
  const holder = identityAt(seed, index, prng)
  const list = prng.weighted<RiskList>([["sat_69b", 60], ["sat_69", 30], ["sancion", 10]])
  return { permits: [], risks: [riskOf(ids, prng, holder, index * 4, list, null)] }
}
