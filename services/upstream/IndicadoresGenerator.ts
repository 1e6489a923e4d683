import { type IndicadorCodigo, INDICADORES } from "../../schema/upstream/Indicador.ts"
import { type Day, dayFromYmd, isBusinessDay, monthFromIndex, monthIndex, ymdFromDay } from "./CivilDate.ts"
import { hashSeed, makePrng } from "./Prng.ts"

export interface Punto {
  readonly day: Day
  readonly valor: number
}

const ANCHOR = dayFromYmd(2026, 10, 2)
const ANCHOR_MONTH = monthIndex(2026, 10)
const UF_ANCHOR = 41_073.57
const UTM_ANCHOR = 72_151
export const DOLAR_INTERCAMBIO: Punto = { day: dayFromYmd(2014, 11, 13), valor: 758.87 }

const round = (n: number, decimals: number) => Math.round(n * 10 ** decimals) / 10 ** decimals
const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n))
const phase = (label: string) => (hashSeed(label) / 4294967296) * 2 * Math.PI
const noise = (label: string) => makePrng(label).next() - 0.5

const monthly = (label: string, month: number, center: number, spread: number, min: number, max: number) =>
  round(clamp(center + spread * makePrng(`indicadores|${label}|${month}`).normal(), min, max), 1)

const ipc = (month: number) => monthly("ipc", month, 0.3, 0.3, -0.4, 1)
const imacec = (month: number) => monthly("imacec", month, 2, 1.5, -1, 5)
const desempleo = (month: number) =>
  round(clamp(8.7 + 0.4 * Math.sin((2 * Math.PI * month) / 12 + phase("desempleo")) + 0.4 * noise(`desempleo|${month}`), 8, 9.5), 1)

/** UF on the 10th of `month`: each 10th-to-9th window grows by the IPC of the month before the window starts. */
const uf10 = (month: number): number => {
  const anchorWindow = ANCHOR_MONTH - 1
  const k = ANCHOR - dayFromYmd(2026, 9, 10)
  const n = dayFromYmd(2026, 10, 10) - dayFromYmd(2026, 9, 10)
  let value = UF_ANCHOR / (1 + ipc(anchorWindow - 1) / 100) ** (k / n)
  for (let m = anchorWindow; m < month; m++) value *= 1 + ipc(m - 1) / 100
  for (let m = anchorWindow; m > month; m--) value /= 1 + ipc(m - 2) / 100
  return value
}

const ufOn = (day: Day): number => {
  const { day: dom, month, year } = ymdFromDay(day)
  const start = dom >= 10 ? monthIndex(year, month) : monthIndex(year, month) - 1
  const s = monthFromIndex(start)
  const e = monthFromIndex(start + 1)
  const from = dayFromYmd(s.year, s.month, 10)
  const n = dayFromYmd(e.year, e.month, 10) - from
  return round(uf10(start) * (1 + ipc(start - 1) / 100) ** ((day - from) / n), 2)
}

const utm = (month: number): number => {
  let value = UTM_ANCHOR
  for (let m = ANCHOR_MONTH; m < month; m++) value = Math.round(value * (1 + ipc(m - 1) / 100))
  for (let m = ANCHOR_MONTH; m > month; m--) value = Math.round(value / (1 + ipc(m - 2) / 100))
  return value
}

const wave = (label: string, day: Day, slow: number, fast: number, jitter: number) =>
  1 +
  slow * Math.sin((2 * Math.PI * day) / 365.25 + phase(`${label}|slow`)) +
  fast * Math.sin((2 * Math.PI * day) / 53 + phase(`${label}|fast`)) +
  jitter * 2 * noise(`${label}|${day}`)

const market = (label: string, anchor: number, slow: number, fast: number, jitter: number) => (day: Day) =>
  round((anchor * wave(label, day, slow, fast, jitter)) / wave(label, ANCHOR, slow, fast, jitter), 2)

const dolar = market("dolar", 983.84, 0.02, 0.01, 0.004)
const euro = market("euro", 1_104.57, 0.02, 0.01, 0.004)
const cobre = market("libra_cobre", 6.56, 0.06, 0.03, 0.01)
const bitcoin = market("bitcoin", 112_350.4, 0.15, 0.05, 0.02)

const TPM_MEETING_MONTHS = [1, 3, 4, 6, 7, 9, 10, 12] as const
const meetingDay = (year: number, month: number) => {
  let day = dayFromYmd(year, month, 16)
  while (!isBusinessDay(day)) day++
  return day
}

const tpm = (day: Day): number => {
  const { year } = ymdFromDay(day)
  for (let y = year; y >= year - 1; y--) {
    for (let i = TPM_MEETING_MONTHS.length - 1; i >= 0; i--) {
      const month = TPM_MEETING_MONTHS[i] ?? 1
      if (meetingDay(y, month) <= day) return 4.5 + 0.25 * Math.round(2 * Math.sin((y * 8 + i) * 0.7 + phase("tpm")))
    }
  }
  return 4.5
}

/** Day the value dated `day` becomes public (monthly indicators lag). */
const publishedOn = (codigo: IndicadorCodigo, day: Day): Day => {
  const { month, year } = ymdFromDay(day)
  const m = monthIndex(year, month)
  const first = (index: number) => dayFromYmd(monthFromIndex(index).year, monthFromIndex(index).month, 1)
  switch (codigo) {
    case "ipc":
      return first(m + 1) + 7
    case "imacec":
    case "tasa_desempleo":
      return first(m + 2)
    default:
      return day
  }
}

/** The value dated exactly `day`, if that indicator has one for that date. */
export const valueOn = (codigo: IndicadorCodigo, day: Day): number | undefined => {
  const { day: dom, month, year } = ymdFromDay(day)
  const periodicidad = INDICADORES[codigo].periodicidad
  if (periodicidad === "habil" && !isBusinessDay(day)) return undefined
  if (periodicidad === "mensual" && dom !== 1) return undefined
  const m = monthIndex(year, month)
  switch (codigo) {
    case "uf":
      return ufOn(day)
    case "ivp":
      return round(ufOn(day) * (1.03 + 0.01 * Math.sin((2 * Math.PI * day) / 365.25 + phase("ivp"))), 2)
    case "dolar":
      return dolar(day)
    case "euro":
      return euro(day)
    case "libra_cobre":
      return cobre(day)
    case "bitcoin":
      return bitcoin(day)
    case "tpm":
      return tpm(day)
    case "ipc":
      return ipc(m)
    case "utm":
      return utm(m)
    case "imacec":
      return imacec(m)
    case "tasa_desempleo":
      return desempleo(m)
    case "dolar_intercambio":
      return day === DOLAR_INTERCAMBIO.day ? DOLAR_INTERCAMBIO.valor : undefined
  }
}

export const pointsBetween = (codigo: IndicadorCodigo, desde: Day, hasta: Day, today: Day): ReadonlyArray<Punto> => {
  if (codigo === "dolar_intercambio") {
    return DOLAR_INTERCAMBIO.day >= desde && DOLAR_INTERCAMBIO.day <= hasta ? [DOLAR_INTERCAMBIO] : []
  }
  const out: Array<Punto> = []
  for (let day = Math.min(hasta, today); day >= desde; day--) {
    const valor = publishedOn(codigo, day) <= today ? valueOn(codigo, day) : undefined
    if (valor !== undefined) out.push({ day, valor })
  }
  return out
}

export const publishedValueOn = (codigo: IndicadorCodigo, day: Day, today: Day): number | undefined =>
  pointsBetween(codigo, day, day, today)[0]?.valor

/** The most recent `count` public values, newest first (mindicador serves about 30 for daily indicators). */
export const recent = (codigo: IndicadorCodigo, today: Day, count: number): ReadonlyArray<Punto> => {
  if (codigo === "dolar_intercambio") return DOLAR_INTERCAMBIO.day <= today ? [DOLAR_INTERCAMBIO] : []
  const span = INDICADORES[codigo].periodicidad === "mensual" ? count * 31 + 62 : count * 2 + 10
  return pointsBetween(codigo, today - span, today, today).slice(0, count)
}

export const SERIE_LENGTH: Readonly<Record<"diaria" | "habil" | "mensual" | "fija", number>> = {
  diaria: 30,
  habil: 30,
  mensual: 12,
  fija: 1
}
