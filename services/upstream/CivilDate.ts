import { Clock, DateTime, Effect } from "effect"

export const CHILE_TIME_ZONE = "America/Santiago"

/** Days since 1970-01-01 in the proleptic Gregorian calendar. */
export type Day = number

export interface Ymd {
  readonly year: number
  readonly month: number
  readonly day: number
}

export const dayFromYmd = (year: number, month: number, day: number): Day => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = (month + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

export const ymdFromDay = (days: Day): Ymd => {
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

/** 0 = Sunday … 6 = Saturday. */
export const weekday = (days: Day): number => (((days + 4) % 7) + 7) % 7

export const isBusinessDay = (days: Day): boolean => {
  const w = weekday(days)
  return w !== 0 && w !== 6
}

export const daysInMonth = (year: number, month: number): number =>
  dayFromYmd(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - dayFromYmd(year, month, 1)

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

export const formatIsoDay = (days: Day): string => {
  const { day, month, year } = ymdFromDay(days)
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`
}

export const formatDmy = (days: Day, separator = "/"): string => {
  const { day, month, year } = ymdFromDay(days)
  return `${pad(day)}${separator}${pad(month)}${separator}${pad(year, 4)}`
}

export const parseIsoDay = (text: string): Day => dayFromYmd(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)))

/** Months since 0000-01, so that consecutive months differ by one. */
export const monthIndex = (year: number, month: number): number => year * 12 + month - 1

export const monthFromIndex = (index: number): { readonly year: number; readonly month: number } => ({
  year: Math.floor(index / 12),
  month: (index % 12) + 1
})

export const formatPeriodo = (index: number): string => {
  const { month, year } = monthFromIndex(index)
  return `${pad(year, 4)}-${pad(month)}`
}

export const parsePeriodo = (periodo: string): number => monthIndex(Number(periodo.slice(0, 4)), Number(periodo.slice(5, 7)))

export const chileDayOf = (millis: number): Day => {
  const parts = DateTime.toParts(DateTime.unsafeMakeZoned(millis, { timeZone: CHILE_TIME_ZONE }))
  return dayFromYmd(parts.year, parts.month, parts.day)
}

export const todayInChile: Effect.Effect<Day> = Effect.map(Clock.currentTimeMillis, chileDayOf)

/** The current month in Chile, as YYYY-MM. */
export const currentPeriodo: Effect.Effect<string> = Effect.map(todayInChile, (today) => {
  const { month, year } = ymdFromDay(today)
  return formatPeriodo(monthIndex(year, month))
})

/** The UTC instant of midnight in Chile, as mindicador prints dates. */
export const chileMidnightIso = (days: Day): string => {
  const { day, month, year } = ymdFromDay(days)
  const zoned = DateTime.unsafeMakeZoned(
    { year, month, day },
    { timeZone: CHILE_TIME_ZONE, adjustForTimeZone: true, disambiguation: "later" }
  )
  return DateTime.formatIso(DateTime.toUtc(zoned))
}
