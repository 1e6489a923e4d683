import { type RefToken, refTokens, stripRefTokens } from "./RefTokens.ts"

/** Text of a sentence between two tokens (or its start, or its end) and the token that follows it, if any. */
export interface Segment {
  readonly text: string
  readonly start: number
  readonly ref?: string
}

export interface Sentence {
  /** From the original narration, tokens included. */
  readonly raw: string
  readonly start: number
  readonly end: number
  readonly displayed: string
  readonly refs: ReadonlyArray<string>
  readonly segments: ReadonlyArray<Segment>
}

const TERMINATOR = /[.!?…]/
const SPACE = /\s/
const HORIZONTAL = /[^\S\n]/
const LIST_ITEM = /^\d{1,3}$/

const skip = (text: string, from: number, pattern: RegExp) => {
  let i = from
  while (i < text.length && pattern.test(text[i] ?? "")) i++
  return i
}

/** After a terminator: the tokens glued to it (spaces between allowed) still belong to its sentence. */
const afterTrailingTokens = (text: string, from: number, tokenAt: ReadonlyMap<number, RefToken>) => {
  let end = from
  for (;;) {
    const token = tokenAt.get(skip(text, end, HORIZONTAL))
    if (token === undefined) return end
    end = token.end
  }
}

const spansOf = (text: string, tokens: ReadonlyArray<RefToken>): ReadonlyArray<readonly [number, number]> => {
  const tokenAt = new Map(tokens.map((token) => [token.start, token]))
  const spans: Array<readonly [number, number]> = []
  const close = (start: number, end: number) => {
    let last = end
    while (last > start && SPACE.test(text[last - 1] ?? "")) last--
    if (last > start) spans.push([start, last])
  }
  let start = skip(text, 0, SPACE)
  let i = start
  while (i < text.length) {
    const token = tokenAt.get(i)
    const c = text[i] ?? ""
    if (token !== undefined) {
      i = token.end
    } else if (c === "\n") {
      close(start, i)
      start = i = skip(text, i, SPACE)
    } else if (TERMINATOR.test(c)) {
      const end = afterTrailingTokens(text, skip(text, i, TERMINATOR), tokenAt)
      const listItem = LIST_ITEM.test(text.slice(start, i))
      if (!listItem && (end === text.length || SPACE.test(text[end] ?? ""))) {
        close(start, end)
        start = i = skip(text, end, SPACE)
      } else {
        i = skip(text, i, TERMINATOR)
      }
    } else {
      i++
    }
  }
  close(start, text.length)
  return spans
}

const segmentsOf = (text: string, start: number, end: number, tokens: ReadonlyArray<RefToken>): ReadonlyArray<Segment> => {
  const segments: Array<Segment> = []
  let from = start
  for (const token of tokens) {
    if (token.start < start || token.end > end) continue
    segments.push({ text: text.slice(from, token.start), start: from, ref: token.id })
    from = token.end
  }
  segments.push({ text: text.slice(from, end), start: from })
  return segments
}

/** The narration's sentences in order: a terminator followed by a space or the end, or a line break, ends one. */
export const sentencesOf = (narration: string): ReadonlyArray<Sentence> => {
  const tokens = refTokens(narration)
  return spansOf(narration, tokens).map(([start, end]) => {
    const raw = narration.slice(start, end)
    const segments = segmentsOf(narration, start, end, tokens)
    return {
      raw,
      start,
      end,
      displayed: stripRefTokens(raw).trim(),
      refs: segments.flatMap((segment) => (segment.ref === undefined ? [] : [segment.ref])),
      segments
    }
  })
}
