/** Dates of the data set as whole days since 1970-01-01 (UTC): pure arithmetic, never the machine's clock. */
const MS_PER_DAY = 86_400_000

export const dayOf = (iso: string): number => Math.round(Date.parse(`${iso}T00:00:00Z`) / MS_PER_DAY)

const isoCache = new Map<number, string>()

/** The ISO date (YYYY-MM-DD) of a day number. */
export const isoOf = (day: number): string => {
  let iso = isoCache.get(day)
  if (iso === undefined) {
    iso = new Date(day * MS_PER_DAY).toISOString().slice(0, 10)
    isoCache.set(day, iso)
  }
  return iso
}

export const yearOf = (day: number): number => Number(isoOf(day).slice(0, 4))

export const partsOf = (day: number) => {
  const iso = isoOf(day)
  return { year: Number(iso.slice(0, 4)), month: Number(iso.slice(5, 7)), day: Number(iso.slice(8, 10)) }
}

/** The data set's "today": it decides which contracts are active, which permits expired, which sanctions still run. */
export const MARKET_AS_OF = "2026-10-31"
export const AS_OF_DAY = dayOf(MARKET_AS_OF)

/** Procedures are published from this day up to a few days before the as-of date. */
export const FIRST_DAY = dayOf("2019-01-01")
export const FIRST_YEAR = 2019
