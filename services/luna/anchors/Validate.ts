import type { Anchor, AnchorsInput, AnchorsReport, CitedResult, UnanchoredFigure } from "../../../schema/luna/Anchors.ts"
import { anchorFigure, indexOf, type RefIndex, tolerance } from "./Anchoring.ts"
import { type Figure, figuresOf } from "./Figures.ts"
import { harvest } from "./Harvest.ts"
import { blankRefTokens } from "./RefTokens.ts"
import { type Sentence, sentencesOf } from "./Sentences.ts"

interface Checked {
  readonly sentence: Sentence
  readonly anchors: ReadonlyArray<Anchor>
  readonly unanchored: ReadonlyArray<UnanchoredFigure>
  readonly unresolved: ReadonlyArray<string>
}

/** Derived figures are computed in floating point: 12 significant digits say them without the noise. */
const clean = (value: number) => Number(value.toPrecision(12))

const checkSentences = (narration: string, results: ReadonlyArray<CitedResult>): ReadonlyArray<Checked> => {
  const harvested = harvest(results)
  const indexes = new Map<string, RefIndex>()
  const indexFor = (ref: string) => {
    const known = indexes.get(ref)
    if (known !== undefined) return known
    const values = harvested.get(ref)
    if (values === undefined) return undefined
    const made = indexOf(values)
    indexes.set(ref, made)
    return made
  }
  const figures = figuresOf(blankRefTokens(narration))
  let next = 0
  const figuresBefore = (end: number) => {
    const found: Array<Figure> = []
    for (let figure = figures[next]; figure !== undefined && figure.start < end; figure = figures[++next]) found.push(figure)
    return found
  }
  return sentencesOf(narration).map((sentence) => {
    const read: Array<Read> = []
    for (const segment of sentence.segments) {
      const index = segment.ref === undefined ? undefined : indexFor(segment.ref)
      for (const figure of figuresBefore(segment.start + segment.text.length)) {
        const anchored = index === undefined ? undefined : anchorFigure(figure, index)
        read.push({
          figure,
          ...(segment.ref === undefined ? {} : { ref: segment.ref }),
          ...(anchored === undefined || segment.ref === undefined
            ? {}
            : { anchor: { figure: figure.text, ref: segment.ref, value: clean(anchored.value), via: anchored.via } })
        })
      }
    }
    const anchors: Array<Anchor> = []
    const unanchored: Array<UnanchoredFigure> = []
    for (const r of read) {
      const anchor = r.anchor ?? (r.figure.percent ? statedPercentage(r.figure, read) : undefined)
      if (anchor !== undefined) anchors.push(anchor)
      else unanchored.push({ figure: r.figure.text, sentence: sentence.displayed, ...(r.ref === undefined ? {} : { ref: r.ref }) })
    }
    return { sentence, anchors, unanchored, unresolved: sentence.refs.filter((ref) => !harvested.has(ref)) }
  })
}

/** A figure of a sentence, the token that covers it, and how it anchors to that token's ref, if it does. */
interface Read {
  readonly figure: Figure
  readonly ref?: string
  readonly anchor?: Anchor
}

/** What a stated figure may stand for in a computation: the value it anchors to, or the figure as written. */
const operands = (r: Read) => [...(r.anchor === undefined ? [] : [r.anchor.value]), ...r.figure.readings.map((reading) => reading.value)]

/**
 * A percentage computed from two other figures of its sentence, both anchored and neither a percentage:
 * a/b×100, at the precision the percentage is written with. It anchors to b's ref.
 */
const statedPercentage = (figure: Figure, sentence: ReadonlyArray<Read>): Anchor | undefined => {
  const stated = sentence.filter((r) => r.anchor !== undefined && !r.figure.percent)
  for (const reading of figure.readings) {
    const t = tolerance(reading.value, reading.step)
    for (const a of stated) {
      for (const b of stated) {
        if (a === b || b.anchor === undefined) continue
        for (const part of operands(a)) {
          for (const whole of operands(b)) {
            if (whole === 0) continue
            const value = (part / whole) * 100
            if (Math.abs(value - reading.value) <= t) {
              return { figure: figure.text, ref: b.anchor.ref, value: clean(value), via: "stated_percentage" }
            }
          }
        }
      }
    }
  }
  return undefined
}

/** Whether every figure of the narration is anchored to a value of the ref that cites it, and which are not. */
export const checkAnchors = (input: AnchorsInput): AnchorsReport => {
  const checked = checkSentences(input.narration, input.results)
  const unresolved_refs = [...new Set(checked.flatMap((c) => c.unresolved))]
  const unanchored_figures = checked.flatMap((c) => c.unanchored)
  return {
    ok: unresolved_refs.length === 0 && unanchored_figures.length === 0,
    anchors: checked.flatMap((c) => c.anchors),
    unresolved_refs,
    unanchored_figures
  }
}

const breaks = (separator: string) => separator.split("\n").length

/**
 * The narration with only its sentences whose figures are all anchored and whose refs all resolve,
 * tokens kept (it can be checked again). Between two kept sentences, the widest break that stood
 * between them (a paragraph break outlives a dropped sentence).
 */
export const anchoredOnly = (
  narration: string,
  results: ReadonlyArray<CitedResult>
): { readonly narration: string; readonly dropped: number } => {
  const checked = checkSentences(narration, results)
  let text = ""
  let separator = ""
  let previousEnd: number | undefined
  let dropped = 0
  for (const { sentence, unanchored, unresolved } of checked) {
    if (previousEnd !== undefined) {
      const between = narration.slice(previousEnd, sentence.start)
      if (breaks(between) >= breaks(separator)) separator = between
    }
    previousEnd = sentence.end
    if (unanchored.length > 0 || unresolved.length > 0) {
      dropped++
      continue
    }
    text += (text === "" ? "" : separator) + sentence.raw
    separator = ""
  }
  return { narration: text, dropped }
}
