import { SNIPPET_MAX } from "../../schema/catalog/Cerebro.ts"

/** The text folded as the search folds it (no accents, lower case), with where each folded character came from. */
const fold = (text: string) => {
  let folded = ""
  const from: Array<number> = []
  for (let i = 0; i < text.length; i++) {
    const part = (text[i] ?? "").normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()
    folded += part
    for (let k = 0; k < part.length; k++) from.push(i)
  }
  return { folded, from }
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

/** At most SNIPPET_MAX characters of the body on one line, around the first term found in it (accents and case aside). */
export const snippetOf = (body: string, terms: ReadonlyArray<string>) => {
  const { folded, from } = fold(body)
  const hits = terms.map((t) => folded.indexOf(fold(t).folded)).filter((at) => at >= 0)
  const at = hits.length === 0 ? 0 : from[Math.min(...hits)] ?? 0
  const start = Math.max(0, at - Math.floor(SNIPPET_MAX / 3))
  const window = oneLine(body.slice(start, start + SNIPPET_MAX * 2))
  const lead = start > 0 ? "…" : ""
  const room = SNIPPET_MAX - lead.length
  return window.length > room || start + SNIPPET_MAX * 2 < body.length
    ? `${lead}${window.slice(0, room - 1)}…`
    : `${lead}${window}`
}
