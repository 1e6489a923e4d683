import type { Anchor, AnchorsInput, AnchorsReport, CitedResult, UnanchoredFigure } from "../../../schema/luna/Anchors.ts"
import { anchorFigure, indexOf, type RefIndex } from "./Anchoring.ts"
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
    const anchors: Array<Anchor> = []
    const unanchored: Array<UnanchoredFigure> = []
    for (const segment of sentence.segments) {
      const index = segment.ref === undefined ? undefined : indexFor(segment.ref)
      for (const figure of figuresBefore(segment.start + segment.text.length)) {
        const anchored = index === undefined ? undefined : anchorFigure(figure, index)
        if (anchored !== undefined && segment.ref !== undefined) {
          anchors.push({ figure: figure.text, ref: segment.ref, value: clean(anchored.value), via: anchored.via })
        } else {
          unanchored.push({
            figure: figure.text,
            sentence: sentence.displayed,
            ...(segment.ref === undefined ? {} : { ref: segment.ref })
          })
        }
      }
    }
    return { sentence, anchors, unanchored, unresolved: sentence.refs.filter((ref) => !harvested.has(ref)) }
  })
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
