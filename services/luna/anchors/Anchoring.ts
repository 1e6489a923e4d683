import type { AnchorVia } from "../../../schema/luna/Anchors.ts"
import type { Figure } from "./Figures.ts"
import type { PartOfWhole, RefValues } from "./Harvest.ts"

/** Sums and averages over all of a ref's values only when it has at most this many. */
export const MAX_VALUES_FOR_TOTALS = 30
/** A ref's values and what may be derived from them, sorted for lookups. */
export interface RefIndex {
  readonly values: Float64Array
  readonly sums: Float64Array
  readonly averages: Float64Array
  /** Its values strictly between -1 and 1 (0 aside): a share the tool computed, said ×100. */
  readonly shares: Float64Array
  /** part/whole×100 of its part-of-whole pairs, and of each item of a column over the column's sum (made on first use). */
  readonly percentages: () => Float64Array
}

const sorted = (numbers: Iterable<number>) => Float64Array.from(new Set(numbers)).sort()

const sum = (numbers: ReadonlyArray<number>) => numbers.reduce((total, n) => total + n, 0)

export const indexOf = (ref: RefValues): RefIndex => {
  const groups = [...ref.columns.values()].filter((column) => column.length >= 2)
  if (ref.values.length >= 2 && ref.values.length <= MAX_VALUES_FOR_TOTALS) groups.push(ref.values)
  return {
    values: sorted(ref.values),
    sums: sorted(groups.map(sum)),
    averages: sorted(groups.map((group) => sum(group) / group.length)),
    shares: sorted(ref.values.filter((value) => value !== 0 && Math.abs(value) < 1)),
    percentages: once(() => sorted(partsOf(ref).map(([part, whole]) => (part / whole) * 100)))
  }
}

const once = <A>(make: () => A): () => A => {
  let made: { readonly value: A } | undefined
  return () => (made ??= { value: make() }).value
}

/** A ref's part-of-whole pairs: its own, and each item of a column of non-negative values over the column's sum. */
const partsOf = (ref: RefValues): ReadonlyArray<PartOfWhole> => {
  const shares = [...ref.columns.values()].flatMap((column) => {
    const whole = sum(column)
    if (column.length < 2 || whole <= 0 || column.some((value) => value < 0)) return []
    return column.map((part): PartOfWhole => [part, whole])
  })
  return [...ref.parts, ...shares]
}

/** Half a step either way, and a hair for sums of binary fractions. */
export const tolerance = (value: number, step: number) => step / 2 + Math.abs(value) * 1e-12 + 1e-12

/** The value of `sorted` closest to `target` within [lo, hi], if any (the smaller one on a tie). */
const closestWithin = (values: Float64Array, lo: number, hi: number, target: number): number | undefined => {
  let low = 0
  let high = values.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if ((values[mid] ?? 0) < lo) low = mid + 1
    else high = mid
  }
  let best: number | undefined
  for (let i = low; i < values.length && (values[i] ?? Infinity) <= hi; i++) {
    const v = values[i] ?? 0
    if (best === undefined || Math.abs(v - target) < Math.abs(best - target)) best = v
  }
  return best
}

const near = (values: Float64Array, target: number, t: number) => closestWithin(values, target - t, target + t, target)

export interface Anchored {
  readonly value: number
  readonly via: AnchorVia
}

type Way = (index: RefIndex, target: number, t: number) => number | undefined

const WAYS: ReadonlyArray<readonly [AnchorVia, Way, "any" | "percent"]> = [
  ["value", (index, target, t) => near(index.values, target, t), "any"],
  ["sum", (index, target, t) => near(index.sums, target, t), "any"],
  ["average", (index, target, t) => near(index.averages, target, t), "any"],
  ["percentage", (index, target, t) => {
    const share = near(index.shares, target / 100, t / 100)
    return share === undefined ? near(index.percentages(), target, t) : share * 100
  }, "percent"]
]

/** How a figure anchors to a ref, trying the ways in order and, within each, every reading of the figure. */
export const anchorFigure = (figure: Figure, index: RefIndex): Anchored | undefined => {
  for (const [via, way, applies] of WAYS) {
    if (applies === "percent" && !figure.percent) continue
    for (const reading of figure.readings) {
      const value = way(index, reading.value, tolerance(reading.value, reading.step))
      if (value !== undefined) return { value, via }
    }
  }
  return undefined
}
