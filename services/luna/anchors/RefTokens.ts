/** `[[ref:ID]]`, ID being any characters but `]`. */
export const REF_TOKEN = /\[\[ref:([^\]]+)\]\]/g

export interface RefToken {
  readonly id: string
  readonly start: number
  readonly end: number
}

export const refTokens = (text: string): ReadonlyArray<RefToken> =>
  Array.from(text.matchAll(REF_TOKEN), (m) => ({ id: m[1] ?? "", start: m.index, end: m.index + m[0].length }))

/** The text with each token blanked out, offsets kept: a token separates what stands around it. */
export const blankRefTokens = (text: string): string => text.replace(REF_TOKEN, (token) => " ".repeat(token.length))

const TOKEN_RUN = /([^\S\n]*)(?:\[\[ref:[^\]]+\]\][^\S\n]*)*\[\[ref:[^\]]+\]\]([^\S\n]*)/g
const CLOSES = /^(?:$|[\n.,;:!?)\]}…%])/

/**
 * The narration as displayed: each token goes with the spaces before it. A run of tokens leaves one
 * separator at most, none before punctuation, a line's end or at a line's start.
 */
export const stripRefTokens = (text: string): string =>
  text.replace(TOKEN_RUN, (run: string, before: string, after: string, offset: number) => {
    const next = text.slice(offset + run.length, offset + run.length + 1)
    const atLineStart = offset === 0 || text[offset - 1] === "\n"
    if (atLineStart || CLOSES.test(next)) return ""
    return after !== "" ? after : before
  })
