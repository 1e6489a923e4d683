import { notFigureRanges } from "./NotFigures.ts"

/** One reading of a figure: its value and the precision it is written with (half a step either way). */
export interface Reading {
  readonly value: number
  readonly step: number
}

export interface Figure {
  /** As written, currency and scale included. */
  readonly text: string
  readonly start: number
  readonly percent: boolean
  /** Every reading the writing allows (1.234 is 1234 in es-CL and 1.234 plain), most likely first. */
  readonly readings: ReadonlyArray<Reading>
}

const NUMBER = String.raw`\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?`
const CURRENCY = String.raw`US\$|\$|(?<!\p{L})(?:MXN|CLP|USD|UF)(?!\p{L})`
const SPACE = String.raw`[^\S\n]`
const SCALE = String.raw`mil millones|millones|millón|millon|mil|MM|M|k|K`
const AFTER = String.raw`${SPACE}?(?:MXN|CLP|USD|UF)(?!\p{L})|${SPACE}(?:de${SPACE})?(?:pesos|dólares)(?!\p{L})`

const FIGURE = new RegExp(
  String.raw`(?<![\p{L}\p{N}_]|\p{N}[.,])(?<sign>[-−])?(?:(?:${CURRENCY})${SPACE}?)?(?<sign2>[-−])?` +
    String.raw`(?<number>${NUMBER})(?!\p{N}|[.,]\p{N})` +
    String.raw`(?:${SPACE}?(?<percent>%)|${SPACE}?(?<scale>${SCALE})(?![\p{L}\p{N}]))?(?:${AFTER})?`,
  "gu"
)

const SCALES: Readonly<Record<string, number>> = {
  "mil millones": 1e9,
  millones: 1e6,
  "millón": 1e6,
  millon: 1e6,
  mil: 1e3,
  MM: 1e6,
  M: 1e6,
  k: 1e3,
  K: 1e3
}

const decimal = (digits: string, separator: string): Reading => {
  const at = digits.lastIndexOf(separator)
  const whole = digits.slice(0, at).replace(/[.,]/g, "")
  const fraction = digits.slice(at + 1)
  return { value: Number(`${whole}.${fraction}`), step: 10 ** -fraction.length }
}

const grouped = (digits: string): Reading => ({ value: Number(digits.replace(/[.,]/g, "")), step: 1 })

/** es-CL (1.234.567,8), es-MX (1,234,567.8) and plain (1234567.8) writings of one number. */
export const readingsOf = (digits: string): ReadonlyArray<Reading> => {
  const dot = digits.lastIndexOf(".")
  const comma = digits.lastIndexOf(",")
  if (dot < 0 && comma < 0) return [{ value: Number(digits), step: 1 }]
  if (dot >= 0 && comma >= 0) return [decimal(digits, dot > comma ? "." : ",")]
  const separator = dot >= 0 ? "." : ","
  const parts = digits.split(separator)
  if (parts.length > 2) return [grouped(digits)]
  const [whole = "", fraction = ""] = parts
  const ambiguous = fraction.length === 3 && whole.length <= 3 && whole !== "0"
  return ambiguous ? [grouped(digits), decimal(digits, separator)] : [decimal(digits, separator)]
}

const inside = (ranges: ReadonlyArray<readonly [number, number]>, start: number, end: number) =>
  ranges.some(([from, to]) => start < to && end > from)

/** The figures of a text, in order; digits in identifiers, RUTs, RFCs, dates and times are not figures. */
export const figuresOf = (text: string): ReadonlyArray<Figure> => {
  const excluded = notFigureRanges(text)
  const figures: Array<Figure> = []
  for (const m of text.matchAll(FIGURE)) {
    const groups = m.groups ?? {}
    const digits = groups["number"] ?? ""
    const start = m.index + m[0].indexOf(digits)
    if (inside(excluded, start, start + digits.length)) continue
    const negative = groups["sign"] !== undefined || groups["sign2"] !== undefined
    const scale = SCALES[groups["scale"] ?? ""] ?? 1
    const readings = readingsOf(digits).map((r) => ({ value: (negative ? -r.value : r.value) * scale, step: r.step * scale }))
    figures.push({ text: m[0].trim(), start: m.index, percent: groups["percent"] !== undefined, readings })
  }
  return figures
}
