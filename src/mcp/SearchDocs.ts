import { Effect, Schema } from "effect"
import { inputIssue } from "../../schema/Depth.ts"
import { InvalidInput, type ToolNotFound } from "../../schema/Errors.ts"
import { ToolId } from "../../schema/Ids.ts"
import { ToolDocument } from "../../schema/tools/Definition.ts"
import { decoderOf } from "../../services/tools/Tool.ts"

export const SEARCH_DOCS = ToolId.make("search_docs")

export const SearchDocsInput = Schema.Struct({
  tool: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "A tool id such as core.timestamp.now: answers that tool's definition"
  }),
  query: Schema.optionalWith(Schema.String, { exact: true }).annotations({
    description: "Words to look for in tool ids, labels and descriptions (case-insensitive)"
  })
})
export type SearchDocsInput = typeof SearchDocsInput.Type

export const SearchDocsOutput = Schema.Struct({
  tools: Schema.Array(ToolDocument)
})
export type SearchDocsOutput = typeof SearchDocsOutput.Type

export const searchDocsSpec = {
  title: "Buscar en la documentación",
  description: "Looks up brein's tools. With `tool`, that tool's definition: plane (action persists nothing; read syncs an " +
    "external system into the cache), call policy (read, pure, spends or writes: how its audit row is committed), plan, hints, cost, approval level, scope, whether it needs a connection, and " +
    "its input/output JSON Schema. With `query`, the definitions whose id, label or description contain its words, " +
    "best match first. With neither, every tool."
} as const

const decode = decoderOf(SEARCH_DOCS, SearchDocsInput)

const wordsOf = (text: string) => text.toLowerCase().split(/[\s,;:!?()"']+/).filter((word) => word.length > 0)

/** Answers search_docs over the given definitions (the tools callable from outside), refusing an id none has with `notFound`. */
export const makeSearchDocs = (documents: ReadonlyArray<ToolDocument>, notFound: (id: string) => ToolNotFound) => {
  const byId = new Map(documents.map((doc) => [doc.id, doc]))
  const indexed = documents.map((doc) => ({ doc, text: `${doc.id} ${doc.label} ${doc.description}`.toLowerCase() }))

  const byQuery = (query: string): SearchDocsOutput => {
    const words = wordsOf(query)
    if (words.length === 0) return { tools: documents }
    const scored = indexed
      .map(({ doc, text }) => ({ doc, score: words.filter((word) => text.includes(word)).length }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score)
    return { tools: scored.map(({ doc }) => doc) }
  }

  return Effect.fn("Mcp.searchDocs")(function* (raw: unknown) {
    // the same refusal as a tool's input: no text is looked for that no tool's input could hold
    const unreadable = inputIssue(raw, "input")
    if (unreadable !== undefined) return yield* InvalidInput.of([unreadable])
    const input = yield* decode(raw ?? {})
    if (input.tool !== undefined) {
      const doc = byId.get(input.tool)
      if (doc === undefined) return yield* notFound(input.tool)
      return { tools: [doc] } satisfies SearchDocsOutput
    }
    if (input.query !== undefined) return byQuery(input.query)
    return { tools: documents } satisfies SearchDocsOutput
  })
}
