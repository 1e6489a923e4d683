import type { Schema } from "effect"
import { COUNT_CAP } from "../../../schema/catalog/Empresas.ts"
import type { Position } from "../SealedCursor.ts"

/** A condition with `?` for each of its parameters, in order. */
export interface Clause {
  readonly sql: string
  readonly params: ReadonlyArray<unknown>
}

export interface Query {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

export const when = <A>(value: A | undefined, sql: string, ...more: ReadonlyArray<A>): Clause | undefined =>
  value === undefined ? undefined : { sql, params: [value, ...more] }

/** Each folded word as a substring of `columns` (any of them): a trigram index answers a folded column. */
export const containing = (columns: ReadonlyArray<string>, words: ReadonlyArray<string>): ReadonlyArray<Clause> =>
  words.map((w) => ({ sql: `(${columns.map((c) => `${c} LIKE ?`).join(" OR ")})`, params: columns.map(() => `%${w}%`) }))

/**
 * A search over a Mercado table, ordered for keyset pages: by `order.at` (a date, newest first) then id
 * descending, or by id ascending when `order.at` is null. `countFrom` is the table alone, for the count.
 */
export interface Order {
  readonly at: string | null
  readonly id: string
}

/**
 * `today` (YYYY-MM-DD, by the Clock) is the day a column or a condition that depends on the date is
 * judged on (a risk finding in force): a parameter of the statement, never part of the search's filters.
 */
export interface Search<F, Row extends { readonly id: string }> {
  readonly columns: string | ((today: string) => Clause)
  readonly from: string
  readonly countFrom: string
  readonly order: Order
  readonly where: (filter: F, today: string) => ReadonlyArray<Clause | undefined>
  readonly row: Schema.Schema<Row, Row>
  readonly positionOf: (row: Row) => Position
  /**
   * The filter as conditions on `market_award_rollup`, when it only narrows the rollup's dimensions:
   * the count is then a sum over a few thousand pre-summed rows, whatever the size of the data set.
   */
  readonly summed?: (filter: F) => ReadonlyArray<Clause | undefined> | undefined
}

/** A clause's `?` as the next numbered parameters of `params`. */
const numbered = (clause: Clause, params: Array<unknown>) => {
  let next = 0
  return clause.sql.replace(/\?/g, () => {
    params.push(clause.params[next++])
    return `$${params.length}`
  })
}

const build = (clauses: ReadonlyArray<Clause | undefined>, params: Array<unknown> = []) => {
  const parts = clauses.flatMap((clause) => (clause === undefined ? [] : [numbered(clause, params)]))
  return { where: parts.length === 0 ? "" : ` WHERE ${parts.join(" AND ")}`, params }
}

const after = (order: Order, at: Position | undefined): Clause | undefined => {
  if (at === undefined) return undefined
  return order.at === null || at.at === null
    ? { sql: `${order.id} > ?`, params: [at.id] }
    : { sql: `(${order.at}, ${order.id}) < (?::date, ?)`, params: [at.at, at.id] }
}

/** SELECT `columns` FROM `from` where every clause holds, then `tail`: parameters numbered in that order. */
export const select = (columns: string | Clause, from: string, clauses: ReadonlyArray<Clause | undefined>, tail = ""): Query => {
  const params: Array<unknown> = []
  const selected = typeof columns === "string" ? columns : numbered(columns, params)
  const { where } = build(clauses, params)
  return { text: `SELECT ${selected} FROM ${from}${where}${tail}`, params }
}

/** One page after `at`: `limit + 1` rows, the last one only says more follow. */
export const pageQuery = <F, Row extends { readonly id: string }>(
  search: Search<F, Row>,
  filter: F,
  today: string,
  at: Position | undefined,
  limit: number
): Query => {
  const order = search.order.at === null ? `${search.order.id}` : `${search.order.at} DESC, ${search.order.id} DESC`
  return select(
    typeof search.columns === "string" ? search.columns : search.columns(today),
    search.from,
    [...search.where(filter, today), after(search.order, at)],
    ` ORDER BY ${order} LIMIT ${limit + 1}`
  )
}

/** The rows matching, counted up to one past COUNT_CAP. */
export const countQuery = <F, Row extends { readonly id: string }>(search: Search<F, Row>, filter: F, today: string): Query => {
  const summed = search.summed?.(filter)
  if (summed !== undefined) {
    const rollup = build(summed)
    return {
      text: `SELECT least(coalesce(sum(awards), 0), ${COUNT_CAP + 1})::int AS n FROM market_award_rollup${rollup.where}`,
      params: rollup.params
    }
  }
  const { params, where } = build(search.where(filter, today))
  return { text: `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${search.countFrom}${where} LIMIT ${COUNT_CAP + 1}) matches`, params }
}
