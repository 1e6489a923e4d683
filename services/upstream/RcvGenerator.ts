import {
  type EstadoRcv,
  type Periodo,
  type Perspectiva,
  RCV_FIRST_PERIODO,
  type RcvDocumento,
  type RcvResumen,
  type RcvResumenTipo
} from "../../schema/upstream/Rcv.ts"
import type { Rut } from "../../schema/upstream/Rut.ts"
import { type Day, dayFromYmd, daysInMonth, formatDmy, isBusinessDay, monthFromIndex, parsePeriodo } from "./CivilDate.ts"
import { ADUANA, companies, type Counterparty, persons, pickFrequent } from "./Counterparties.ts"
import { makePrng, type NonEmpty, type Prng } from "./Prng.ts"

const RCV_START = parsePeriodo(RCV_FIRST_PERIODO)

/** A document as generated once, before the clock decides what SII shows of it. */
interface BaseDoc {
  readonly tipoDte: number
  readonly folio: number
  readonly emisor: Rut
  readonly receptor: Rut
  readonly razonSocial: string
  readonly emision: Day
  readonly recepcion: Day
  readonly exento: number
  readonly neto: number
  readonly estadoFinal: EstadoRcv
  readonly estadoDesde: Day
  readonly correccion: { readonly desde: Day; readonly factor: number } | undefined
  readonly ref: { readonly tipoDte: number; readonly folio: number } | undefined
}

interface Profile {
  readonly size: number
  readonly inicio: number
  readonly boletas: boolean
  readonly clientes: ReadonlyArray<Counterparty>
  readonly proveedores: ReadonlyArray<Counterparty>
  readonly personas: ReadonlyArray<Counterparty>
}

const profile = (rut: Rut): Profile => {
  const p = makePrng(`sii|${rut}|perfil`)
  return {
    size: p.next(),
    inicio: p.chance(0.7) ? RCV_START : RCV_START + p.int(1, 72),
    boletas: p.chance(0.3),
    clientes: companies(p, p.int(8, 60), rut),
    proveedores: companies(p, p.int(10, 80), rut),
    personas: persons(p, p.int(2, 8))
  }
}

const MIX_VENTAS: NonEmpty<readonly [number, number]> = [[33, 85], [61, 8], [34, 5], [56, 2]]
const MIX_COMPRAS: NonEmpty<readonly [number, number]> = [[33, 82], [61, 7], [34, 6], [46, 2], [56, 1], [914, 2]]
const ESTADO_COMPRAS: NonEmpty<readonly [EstadoRcv, number]> = [["registro", 85], ["no_incluir", 4], ["reclamado", 3]]
const ACUSE_WINDOW_DAYS = 8

const iva = (neto: number) => Math.round(neto * 0.19)
const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n))
const montoNeto = (p: Prng, median: number, sigma: number) => Math.round(clamp(p.logNormal(median, sigma), 5_000, 400_000_000))

const documentCount = (prof: Profile, perspectiva: Perspectiva, p: Prng): number => {
  const [min, max] = perspectiva === "ventas" ? [20, 300] : [30, 500]
  return clamp(Math.round(min + (max - min) * prof.size ** 1.5 * (0.8 + 0.4 * p.next())), min, max)
}

const issueDay = (p: Prng, first: Day, days: number): Day => {
  const roll = first + p.int(0, days - 1)
  return isBusinessDay(roll) || p.chance(0.2) ? roll : first + p.int(0, days - 1)
}

const folioSeries = () => {
  const next = new Map<string, number>()
  return (key: string, start: () => number, step: number): number => {
    const folio = (next.get(key) ?? start()) + step
    next.set(key, folio)
    return folio
  }
}

const estadoCompras = (p: Prng, tipoDte: number, recepcion: Day): Pick<BaseDoc, "estadoFinal" | "estadoDesde"> => {
  if (tipoDte === 46 || tipoDte === 914) return { estadoFinal: "registro", estadoDesde: recepcion }
  const estadoFinal = p.weighted(ESTADO_COMPRAS)
  const delay = estadoFinal === "registro" && p.chance(0.4) ? ACUSE_WINDOW_DAYS : p.int(0, ACUSE_WINDOW_DAYS - 1)
  return { estadoFinal, estadoDesde: recepcion + delay }
}

const memo = new Map<string, ReadonlyArray<BaseDoc>>()
const MEMO_SIZE = 32

// A period is generated once and kept: the simulator lists it per tipoDte, as SII does, many times.
const generateBase = (rut: Rut, periodo: Periodo, perspectiva: Perspectiva, volume?: number): ReadonlyArray<BaseDoc> => {
  const key = `${rut}|${periodo}|${perspectiva}|${volume ?? ""}`
  const known = memo.get(key)
  if (known !== undefined) return known
  const made = generateFresh(rut, periodo, perspectiva, volume)
  if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value ?? "")
  memo.set(key, made)
  return made
}

const generateFresh = (rut: Rut, periodo: Periodo, perspectiva: Perspectiva, volume?: number): ReadonlyArray<BaseDoc> => {
  const prof = profile(rut)
  const index = parsePeriodo(periodo)
  if (index < prof.inicio) return []
  const { month, year } = monthFromIndex(index)
  const first = dayFromYmd(year, month, 1)
  const days = daysInMonth(year, month)
  const p = makePrng(`sii|${rut}|${periodo}|${perspectiva}`)
  const mix = perspectiva === "ventas" ? MIX_VENTAS : MIX_COMPRAS
  const count = documentCount(prof, perspectiva, p)
  const slots = Array.from({ length: volume ?? count }, (_, i) => ({
    i,
    emision: issueDay(p, first, days),
    tipo: p.weighted(mix)
  })).sort((a, b) => a.emision - b.emision || a.i - b.i)
  const folio = folioSeries()
  const periodOffset = index - RCV_START
  const facturas: Array<BaseDoc> = []
  const docs: Array<BaseDoc> = []
  const pool = perspectiva === "ventas" ? prof.clientes : prof.proveedores
  const fallback: Counterparty = pool[0] ?? ADUANA
  for (const slot of slots) {
    const isNote = slot.tipo === 61 || slot.tipo === 56
    const referenced = isNote ? p.pickMaybe(facturas) : undefined
    const tipoDte = isNote && referenced === undefined ? 33 : slot.tipo
    const counterpart = referenced !== undefined
      ? { rut: perspectiva === "ventas" ? referenced.receptor : referenced.emisor, nombre: referenced.razonSocial }
      : tipoDte === 46
      ? pickFrequent(p, prof.personas, fallback)
      : tipoDte === 914
      ? ADUANA
      : pickFrequent(p, pool, fallback)
    const ownIssued = perspectiva === "ventas" || tipoDte === 46
    const [emisor, receptor] = ownIssued ? [rut, counterpart.rut] : [counterpart.rut, rut]
    const fraction = slot.tipo === 61 ? (p.chance(0.3) ? 1 : 0.05 + 0.95 * p.next()) : 0.02 + 0.28 * p.next()
    const neto = referenced !== undefined
      ? Math.round(referenced.neto * fraction)
      : tipoDte === 34
      ? 0
      : tipoDte === 914
      ? montoNeto(p, 2_000_000, 1.2)
      : tipoDte === 46
      ? montoNeto(p, 300_000, 1)
      : montoNeto(p, 450_000, 2)
    const exento = referenced !== undefined
      ? Math.round(referenced.exento * fraction)
      : tipoDte === 34
      ? montoNeto(p, 250_000, 1.5)
      : tipoDte === 33 && p.chance(0.05)
      ? Math.round(neto * 0.1 * p.next())
      : 0
    const recepcion = Math.max(slot.emision + p.weighted<number>([[0, 60], [1, 30], [2, 10]]), referenced?.recepcion ?? 0)
    const series = ownIssued ? `propio|${tipoDte}` : `${counterpart.rut}|${tipoDte}`
    const doc: BaseDoc = {
      tipoDte,
      folio: ownIssued
        ? folio(series, () => makePrng(`sii|${rut}|folio|${tipoDte}`).int(100, 40_000) + periodOffset * 400, 1)
        : folio(series, () => makePrng(`sii|${rut}|folio|${series}`).int(1, 900_000) + periodOffset * 5_000, p.int(1, 5)),
      emisor,
      receptor,
      razonSocial: counterpart.nombre,
      emision: slot.emision,
      recepcion,
      exento,
      neto,
      ...(perspectiva === "ventas"
        ? { estadoFinal: "registro" as const, estadoDesde: recepcion }
        : estadoCompras(p, tipoDte, recepcion)),
      correccion: referenced === undefined && p.chance(0.02)
        ? { desde: recepcion + p.int(2, 30), factor: 0.9 + 0.2 * p.next() }
        : undefined,
      ref: referenced !== undefined ? { tipoDte: referenced.tipoDte, folio: referenced.folio } : undefined
    }
    if (tipoDte === 33) facturas.push(doc)
    docs.push(doc)
  }
  return docs
}

const present = (doc: BaseDoc, periodo: Periodo, perspectiva: Perspectiva, today: Day): RcvDocumento => {
  const factor = doc.correccion !== undefined && today >= doc.correccion.desde ? doc.correccion.factor : 1
  const montoNeto = Math.round(doc.neto * factor)
  const montoExento = Math.round(doc.exento * factor)
  const montoIva = iva(montoNeto)
  return {
    tipoDte: doc.tipoDte,
    folio: doc.folio,
    rutEmisor: doc.emisor,
    rutReceptor: doc.receptor,
    razonSocial: doc.razonSocial,
    fechaEmision: formatDmy(doc.emision),
    montoExento,
    montoNeto,
    montoIva,
    montoTotal: montoNeto + montoIva + montoExento,
    estado: today < doc.estadoDesde ? "pendiente" : doc.estadoFinal,
    periodo,
    perspectiva,
    ...(doc.ref !== undefined ? { tipoDocRef: doc.ref.tipoDte, folioRef: doc.ref.folio } : {})
  }
}

/** What SII lists for a period on `today`: documents received so far, with the estados and amounts of that day. */
export const rcvDocuments = (
  rut: Rut,
  periodo: Periodo,
  perspectiva: Perspectiva,
  today: Day,
  volume?: number
): ReadonlyArray<RcvDocumento> =>
  generateBase(rut, periodo, perspectiva, volume)
    .filter((doc) => doc.recepcion <= today)
    .map((doc) => present(doc, periodo, perspectiva, today))

const boletasRow = (rut: Rut, periodo: Periodo, today: Day): RcvResumenTipo | undefined => {
  const index = parsePeriodo(periodo)
  const prof = profile(rut)
  if (!prof.boletas || index < prof.inicio) return undefined
  const { month, year } = monthFromIndex(index)
  const first = dayFromYmd(year, month, 1)
  const days = daysInMonth(year, month)
  const elapsed = clamp((today - first + 1) / days, 0, 1)
  const p = makePrng(`sii|${rut}|${periodo}|boletas`)
  const documentos = Math.round(p.int(100, 3_000) * elapsed)
  if (documentos === 0) return undefined
  const montoNeto = Math.round((documentos * p.int(5_000, 50_000)) / 1.19)
  const montoIva = iva(montoNeto)
  return { tipoDte: 39, documentos, montoExento: 0, montoNeto, montoIva, montoTotal: montoNeto + montoIva, soloTotal: true }
}

/**
 * The same documents as SII shows them after a correction (scenario `cambia`): the first document
 * and ≈ 15 % of the others, always the same ones, have a 10 % higher amount; in compras they are reclamado.
 */
export const revised = (rut: Rut, documentos: ReadonlyArray<RcvDocumento>): ReadonlyArray<RcvDocumento> =>
  documentos.map((doc, i) => {
    if (i > 0 && !makePrng(`sii|${rut}|cambia|${doc.rutEmisor}|${doc.tipoDte}|${doc.folio}`).chance(0.15)) return doc
    const montoNeto = Math.round(doc.montoNeto * 1.1)
    const montoExento = Math.round(doc.montoExento * 1.1)
    const montoIva = iva(montoNeto)
    return {
      ...doc,
      montoNeto,
      montoExento,
      montoIva,
      montoTotal: montoNeto + montoIva + montoExento,
      ...(doc.perspectiva === "compras" ? { estado: "reclamado" as const } : {})
    }
  })

export const rcvResumen = (
  rut: Rut,
  periodo: Periodo,
  perspectiva: Perspectiva,
  today: Day,
  volume?: number,
  view: (documentos: ReadonlyArray<RcvDocumento>) => ReadonlyArray<RcvDocumento> = (d) => d
): RcvResumen => {
  const byType = new Map<number, RcvResumenTipo>()
  for (const doc of view(rcvDocuments(rut, periodo, perspectiva, today, volume))) {
    const row = byType.get(doc.tipoDte)
    byType.set(doc.tipoDte, {
      tipoDte: doc.tipoDte,
      documentos: (row?.documentos ?? 0) + 1,
      montoExento: (row?.montoExento ?? 0) + doc.montoExento,
      montoNeto: (row?.montoNeto ?? 0) + doc.montoNeto,
      montoIva: (row?.montoIva ?? 0) + doc.montoIva,
      montoTotal: (row?.montoTotal ?? 0) + doc.montoTotal,
      soloTotal: false
    })
  }
  const boletas = perspectiva === "ventas" ? boletasRow(rut, periodo, today) : undefined
  const tipos = [...byType.values(), ...(boletas !== undefined ? [boletas] : [])].sort((a, b) => a.tipoDte - b.tipoDte)
  return { periodo, perspectiva, tipos }
}
