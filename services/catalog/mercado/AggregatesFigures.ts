/**
 * Amounts are summed as exact numerics in SQL, carried here as integer cents, and rounded once, the
 * same way on every path: amounts and averages to 2 decimals (half up), shares to 1 decimal percent.
 * A group's figures and the "other" remainder are cents, so groups + other add up to the total exactly.
 */
export interface Summed {
  readonly n: number
  readonly cents: number
}

/** "1234.56" (a numeric summed by PostgreSQL) as 123456 cents. */
export const centsOf = (amount: string): number => Math.round(Number(amount) * 100)

export const amountOf = (cents: number): number => cents / 100

/** cents / count as an amount, half up; null when nothing was counted (never NaN). */
export const averageOf = (cents: number, count: number): number | null => count === 0 ? null : Math.round(cents / count) / 100

/** A plain ratio to 2 decimals (awards per supplier); null over nothing. */
export const ratioOf = (part: number, count: number): number | null => count === 0 ? null : Math.round((part * 100) / count) / 100

/** part of whole in percent, 1 decimal; null when the whole is 0. */
export const shareOf = (part: number, whole: number): number | null => whole === 0 ? null : Math.round((part * 1000) / whole) / 10

/** n, total and average of summed awards, as every aggregate answers them. */
export const figuresOf = (s: Summed) => ({ n: s.n, total: amountOf(s.cents), average: averageOf(s.cents, s.n) })

export const sumOf = (rows: ReadonlyArray<Summed>): Summed =>
  rows.reduce((acc, row) => ({ n: acc.n + row.n, cents: acc.cents + row.cents }), { n: 0, cents: 0 })
