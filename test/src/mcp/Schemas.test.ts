import { assert, layer } from "@effect/vitest"
import type { JsonSchemaType } from "@modelcontextprotocol/client"
import { DefaultJsonSchemaValidator } from "@modelcontextprotocol/client/_shims"
import { Effect, Layer } from "effect"
import { InvalidInput } from "../../../schema/Errors.ts"
import { Registry } from "../../../services/tools/Registry.ts"
import { makeCatalog } from "../../../src/mcp/Catalog.ts"
import { failure } from "../../../src/mcp/Results.ts"
import { simulatedServices } from "../../support/Connected.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

/** Every place in a schema that breaks portability, as "path: problem". */
const problems = (value: unknown, path = "#"): ReadonlyArray<string> => {
  if (Array.isArray(value)) return value.flatMap((item, i) => problems(item, `${path}/${i}`))
  if (typeof value !== "object" || value === null) return []
  const found: Array<string> = []
  for (const [key, child] of Object.entries(value)) {
    if (key === "additionalProperties" && typeof child === "object" && child !== null && Object.keys(child).length === 0) {
      found.push(`${path}: additionalProperties {}`)
    }
    if (key === "$ref") found.push(`${path}: $ref ${String(child)}`)
    if (key === "$id" || key === "$schema" || key === "definitions") found.push(`${path}: ${key}`)
    found.push(...problems(child, `${path}/${key}`))
  }
  return found
}

const FullRegistry = simulatedServices().pipe(Layer.provideMerge(TestDatabase))

layer(FullRegistry, { excludeTestServices: true })("MCP tool schemas", (it) => {
  it.effect("every registered tool's input and output schema is plain JSON Schema 2020-12 that compiles", () =>
    Effect.gen(function* () {
      const catalog = makeCatalog(yield* Registry)
      const validator = new DefaultJsonSchemaValidator()
      assert.isAbove(catalog.listing.tools.length, 10)
      for (const tool of catalog.listing.tools) {
        for (const [side, schema] of [["input", tool.inputSchema], ["output", tool.outputSchema]] as const) {
          assert.isDefined(schema, `${tool.name} ${side}`)
          if (schema === undefined) continue
          assert.strictEqual(schema.type, "object", `${tool.name} ${side}`)
          assert.deepStrictEqual(problems(schema), [], `${tool.name} ${side}`)
          assert.doesNotThrow(() => validator.getValidator(schema as JsonSchemaType), `${tool.name} ${side}`)
        }
      }
    }))

  it.effect("search_docs documents every tool with the input tools/list shows, a connector tool's connection argument too", () =>
    Effect.gen(function* () {
      const catalog = makeCatalog(yield* Registry)
      const connectors = catalog.listing.tools.filter((tool) => /^(sii|banco)\./.test(tool.name))
      assert.isNotEmpty(connectors)
      for (const tool of connectors) assert.property(tool.inputSchema.properties, "connection", tool.name)
      for (const tool of catalog.listing.tools.filter((t) => t.name !== "search_docs")) {
        const { tools: [documented] } = yield* catalog.searchDocs({ tool: tool.name })
        assert.deepStrictEqual(documented?.inputSchema, tool.inputSchema, tool.name)
      }
    }))

  it.effect("an error result has no structured content to break the output schema; its error is in the text", () =>
    Effect.gen(function* () {
      const catalog = makeCatalog(yield* Registry)
      const result = failure(InvalidInput.of([{ path: "input.periodo", message: "is missing" }]))
      assert.isTrue(result.isError)
      assert.notProperty(result, "structuredContent")
      const [text] = result.content
      assert.deepInclude(JSON.parse(text?.type === "text" ? text.text : "{}"), {
        _tag: "InvalidInput",
        message: "input.periodo is missing"
      })
      const validator = new DefaultJsonSchemaValidator()
      const output = catalog.entries.get("sii.rcv.consultar")?.outputSchema
      assert.isDefined(output)
      if (output !== undefined) {
        // what the old answer carried as structured content fails the declared schema: the reason it is gone
        assert.isFalse(validator.getValidator(output as JsonSchemaType)({ _tag: "InvalidInput", message: "x", issues: [] }).valid)
      }
    }))
})
