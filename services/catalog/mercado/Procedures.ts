import type { MarketSector } from "../../../schema/catalog/MarketSectors.ts"
import { makePrng, type NonEmpty, type Prng } from "../../upstream/Prng.ts"
import { AS_OF_DAY, FIRST_DAY, isoOf, partsOf, yearOf } from "./Calendar.ts"
import { SECTOR_TABLE } from "./Identity.ts"
import type { MarketIds } from "./Ids.ts"
import { TITLES } from "./Names.ts"
import type { AwardRow, ContractType, OpportunityRow, ProcedureType, SupplierSize } from "./Rows.ts"
import type { Unit } from "./Units.ts"

/** What the procedures need to know of the suppliers and units already generated. */
export interface Market {
  readonly seed: string
  readonly ids: MarketIds
  readonly units: ReadonlyArray<Unit>
  /** Running sum of the units' activity, for a weighted pick by binary search. */
  readonly activity: Float64Array
  readonly supplierSizes: ReadonlyArray<SupplierSize>
  /** Supplier indexes per sector, biggest suppliers first: a low pick is a frequent winner. */
  readonly bySector: ReadonlyMap<MarketSector, ReadonlyArray<number>>
  /** The same per sector and state, for state and municipal buyers that favour local suppliers. */
  readonly bySectorState: ReadonlyMap<string, ReadonlyArray<number>>
  /** Procedure numbers counted per buying unit and year (E1, E2, …). */
  readonly counters: Map<string, number>
}

const PROCEDURES: NonEmpty<readonly [ProcedureType, number]> = [["adjudicacion_directa", 78], ["invitacion_tres", 12], [
  "licitacion_publica",
  10
]]
const LETTER: Record<ProcedureType, string> = { licitacion_publica: "L", invitacion_tres: "I", adjudicacion_directa: "A" }

const CONTRACT_TYPES: Record<MarketSector, NonEmpty<readonly [ContractType, number]>> = {
  construccion: [["obra_publica", 80], ["servicios_obra", 20]],
  mantenimiento: [["servicios", 60], ["servicios_obra", 25], ["obra_publica", 15]],
  consultoria: [["servicios", 85], ["servicios_obra", 15]],
  vehiculos: [["adquisiciones", 65], ["arrendamientos", 25], ["servicios", 10]],
  tecnologia: [["adquisiciones", 50], ["servicios", 35], ["arrendamientos", 15]],
  equipo_medico: [["adquisiciones", 70], ["arrendamientos", 15], ["servicios", 15]],
  limpieza: [["servicios", 90], ["adquisiciones", 10]],
  seguridad: [["servicios", 90], ["adquisiciones", 10]],
  alimentos: [["adquisiciones", 60], ["servicios", 40]],
  medicamentos: [["adquisiciones", 92], ["servicios", 8]],
  papeleria: [["adquisiciones", 90], ["servicios", 10]],
  combustibles: [["adquisiciones", 95], ["servicios", 5]]
}

// Medians and spreads (MXN) per procedure: awards overall have a median near 250,000 and a p99 near 50 M,
// direct awards are most contracts and public tenders most of the money.
const AMOUNT: Record<ProcedureType, readonly [number, number]> = {
  adjudicacion_directa: [160_000, 1.3],
  invitacion_tres: [1_500_000, 1.0],
  licitacion_publica: [8_000_000, 1.4]
}
const AWARDS_PER_PROCEDURE: Record<ProcedureType, NonEmpty<readonly [number, number]>> = {
  adjudicacion_directa: [[1, 97], [2, 3]],
  invitacion_tres: [[1, 85], [2, 12], [3, 3]],
  licitacion_publica: [[1, 70], [2, 20], [3, 10]]
}
const DURATION: Record<ContractType, readonly [number, number]> = {
  adquisiciones: [15, 150],
  servicios: [60, 365],
  obra_publica: [60, 540],
  servicios_obra: [30, 300],
  arrendamientos: [180, 1095]
}
// How strongly awards concentrate on a sector's first (biggest) suppliers: u^k of the list.
const CONCENTRATION: Record<ProcedureType, number> = { adjudicacion_directa: 1.4, invitacion_tres: 2, licitacion_publica: 3 }

const pickUnit = (market: Market, prng: Prng): Unit => {
  const roll = prng.next() * (market.activity[market.activity.length - 1] ?? 0)
  let lo = 0
  let hi = market.activity.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((market.activity[mid] ?? 0) > roll) hi = mid
    else lo = mid + 1
  }
  return market.units[lo] ?? market.units[0] as Unit
}

// More procedures in the last quarter (budget closing), as in the real series.
const publishedDay = (prng: Prng) => {
  let day = prng.int(FIRST_DAY, AS_OF_DAY - 3)
  if (partsOf(day).month < 10 && prng.chance(0.2)) day = prng.int(FIRST_DAY, AS_OF_DAY - 3)
  return day
}

const money = (n: number) => (Math.max(1500, Math.round(n * 100) / 100)).toFixed(2)

const pickSupplier = (market: Market, prng: Prng, sector: MarketSector, unit: Unit, procedure: ProcedureType): number => {
  const local = unit.row.government === "APF" || !prng.chance(0.6) ? undefined : market.bySectorState.get(`${sector}/${unit.row.state}`)
  const pool = local !== undefined && local.length > 0 ? local : market.bySector.get(sector)
  const u = prng.next() ** CONCENTRATION[procedure]
  if (pool === undefined || pool.length === 0) return Math.floor(u * market.supplierSizes.length)
  return pool[Math.floor(u * pool.length)] ?? pool[0] ?? 0
}

const titleOf = (prng: Prng, sector: MarketSector, unit: Unit, year: number) => {
  const { forms, objects } = TITLES[sector]
  const title = prng.pick(forms).replace("{x}", prng.pick(objects))
  const roll = prng.next()
  return roll < 0.3 ? `${title} para el ejercicio fiscal ${year}` : roll < 0.5 ? `${title} en ${unit.stateName}` : title
}

export interface GeneratedProcedure {
  readonly opportunity: OpportunityRow
  readonly awards: ReadonlyArray<AwardRow>
}

/** Procedure `index` with at most `room` awards, the first numbered `firstAward`. */
export const procedureAt = (market: Market, index: number, firstAward: number, room: number): GeneratedProcedure => {
  const prng = makePrng(`${market.seed}/procedure/${index}`)
  const unit = pickUnit(market, prng)
  const sector = prng.chance(0.55) ? prng.pick(unit.sectors as unknown as NonEmpty<MarketSector>) : prng.weighted(SECTOR_TABLE)
  const contractType = prng.weighted(CONTRACT_TYPES[sector])
  const law = contractType === "obra_publica" || contractType === "servicios_obra" ? "LOPSRM" : "LAASSP"
  const procedure = prng.weighted(PROCEDURES)
  const character = procedure === "licitacion_publica"
    ? prng.weighted<OpportunityRow["character"]>([["nacional", 70], ["internacional_tlc", 20], ["internacional", 10]])
    : prng.chance(0.96)
    ? "nacional"
    : "internacional_tlc"
  const form = prng.weighted<OpportunityRow["form"]>([["electronica", 80], ["presencial", 12], ["mixta", 8]])
  const published = publishedDay(prng)
  const year = yearOf(published)
  const opens = published + (procedure === "adjudicacion_directa"
    ? prng.int(0, 3)
    : procedure === "invitacion_tres"
    ? prng.int(5, 12)
    : character === "nacional"
    ? prng.int(10, 20)
    : prng.int(20, 40))
  const decided = opens +
    (procedure === "adjudicacion_directa" ? prng.int(0, 2) : procedure === "invitacion_tres" ? prng.int(3, 10) : prng.int(5, 20))
  const roll = prng.next()
  const status: OpportunityRow["status"] = decided > AS_OF_DAY
    ? "active"
    : roll < (procedure === "adjudicacion_directa" ? 0.01 : 0.05)
    ? "cancelled"
    : roll < (procedure === "adjudicacion_directa" ? 0.01 : procedure === "invitacion_tres" ? 0.13 : 0.11)
    ? "unsuccessful"
    : "complete"
  const count = status === "complete" ? Math.min(room, prng.weighted(AWARDS_PER_PROCEDURE[procedure])) : 0
  const key = `${unit.row.clave}/${year}`
  const n = (market.counters.get(key) ?? 0) + 1
  market.counters.set(key, n)
  const id = market.ids.opportunity(index)
  const title = titleOf(prng, sector, unit, year)
  const [median, sigma] = AMOUNT[procedure]
  const scale = law === "LOPSRM" ? 1.3 : 1
  const awards: Array<AwardRow> = []
  let total = 0
  for (let k = 0; k < count; k++) {
    const amount = money(prng.logNormal(median * scale, sigma))
    total += Number(amount)
    const supplier = pickSupplier(market, prng, sector, unit, procedure)
    const signed = Math.min(AS_OF_DAY, decided + prng.int(0, 15))
    const starts = signed + prng.int(0, 10)
    const [least, most] = DURATION[contractType]
    const ends = starts + prng.int(least, most)
    const awardIndex = firstAward + k
    const signedYear = yearOf(signed)
    awards.push({
      id: market.ids.award(awardIndex),
      opportunityId: id,
      supplierId: market.ids.supplier(supplier),
      unitId: unit.row.id,
      contractCode: `${unit.row.clave}-${signedYear}-${String(awardIndex + 1).padStart(7, "0")}`,
      title: count === 1 ? title : `${title}, partida ${k + 1}`,
      amount,
      currency: "MXN",
      signedOn: isoOf(signed),
      startsOn: isoOf(starts),
      endsOn: isoOf(ends),
      status: prng.chance(0.015) ? "cancelado" : ends < AS_OF_DAY ? "expirado" : "activo",
      state: unit.row.state,
      year: signedYear,
      procedureType: procedure,
      contractType,
      supplierSize: market.supplierSizes[supplier] ?? "micro"
    })
  }
  const estimated = count > 0 ? total * (1 + prng.next() * 0.15) : prng.logNormal(median * scale, sigma)
  return {
    opportunity: {
      id,
      number: `${LETTER[procedure]}${law === "LOPSRM" ? "O" : "A"}-${unit.row.clave}-E${n}-${year}`,
      unitId: unit.row.id,
      title,
      procedureType: procedure,
      law,
      contractType,
      character,
      form,
      state: unit.row.state,
      status,
      publishedOn: isoOf(published),
      opensOn: isoOf(opens),
      awardedOn: status === "complete" ? isoOf(decided) : null,
      estimatedAmount: money(estimated)
    },
    awards
  }
}
