import type { Tool } from "@modelcontextprotocol/server"
import { ToolNotFound } from "../../schema/Errors.ts"
import type { Hints } from "../../schema/tools/Definition.ts"
import { nearestName } from "../../services/tools/Nearest.ts"
import type { RegistryApi } from "../../services/tools/Registry.ts"
import { fromEffectSchema, type ObjectSchema, objectSchema, responseSchema, withConnectionArgument } from "./JsonSchemas.ts"
import { makeSearchDocs, SEARCH_DOCS, SearchDocsInput, SearchDocsOutput, searchDocsSpec } from "./SearchDocs.ts"

export interface CatalogEntry {
  readonly definition: Tool
  readonly outputSchema: ObjectSchema
  /** Whether a `connection` argument stands in for the X-Connect-Connection header. */
  readonly acceptsConnection: boolean
}

const annotations = (title: string, hints: Hints) => ({
  title,
  readOnlyHint: hints.readOnly,
  destructiveHint: hints.destructive,
  idempotentHint: hints.idempotent,
  openWorldHint: hints.openWorld
})

const entry = (
  definition: Omit<Tool, "outputSchema"> & { readonly outputSchema: ObjectSchema },
  acceptsConnection: boolean
): CatalogEntry => ({
  definition,
  outputSchema: definition.outputSchema,
  acceptsConnection
})

/**
 * Everything MCP says about the tools, computed once from the registry: the stateless handler builds
 * a server per request, and rebuilding schemas there would cost more than the call itself.
 */
export const makeCatalog = (registry: RegistryApi) => {
  // search_docs documents a tool with the input tools/list shows and a call accepts
  const documents = registry.external.map(({ document, requiresConnection }) => {
    const input = objectSchema(document.inputSchema)
    return { ...document, inputSchema: requiresConnection ? withConnectionArgument(input) : input }
  })
  const tools = documents.map((document) =>
    entry(
      {
        name: document.id,
        title: document.label,
        description: document.description,
        inputSchema: document.inputSchema,
        outputSchema: responseSchema(document.outputSchema),
        annotations: annotations(document.label, document.hints)
      },
      document.requiresConnection
    )
  )
  const searchDocs = entry(
    {
      name: SEARCH_DOCS,
      title: searchDocsSpec.title,
      description: searchDocsSpec.description,
      inputSchema: fromEffectSchema(SearchDocsInput),
      outputSchema: fromEffectSchema(SearchDocsOutput),
      annotations: annotations(searchDocsSpec.title, { readOnly: true, destructive: false, idempotent: true, openWorld: false })
    },
    false
  )
  const all = [...tools, searchDocs]
  const names = all.map((e) => e.definition.name)
  return {
    listing: { tools: all.map((e) => e.definition) },
    entries: new Map(all.map((e) => [e.definition.name, e])),
    /** The refusal of a name `tools/list` does not show, naming the one it probably meant among those it does (search_docs too). */
    notFound: (name: string) => ToolNotFound.of(name, nearestName(name, names)),
    searchDocs: makeSearchDocs(documents, (id) => registry.notFound(id, "external"))
  }
}

export type Catalog = ReturnType<typeof makeCatalog>
