import { assert, describe, it } from "@effect/vitest"
import { sources } from "../../../layers/Registry.ts"
import { toJsonSchema } from "../../../schema/tools/JsonSchema.ts"
import type { AnyTool } from "../../../services/tools/Tool.ts"

type Json = Readonly<Record<string, unknown>>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Every property name anywhere in a JSON Schema (through properties, items, anyOf and $defs). */
const propertyNames = (schema: unknown, into: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(schema)) schema.forEach((s) => propertyNames(s, into))
  if (!isObject(schema)) return into
  if (isObject(schema["properties"])) {
    for (const [name, value] of Object.entries(schema["properties"])) {
      into.add(name)
      propertyNames(value, into)
    }
  }
  for (const key of ["items", "anyOf", "oneOf", "allOf", "additionalProperties"]) propertyNames(schema[key], into)
  if (isObject(schema["$defs"])) Object.values(schema["$defs"]).forEach((d) => propertyNames(d, into))
  return into
}

/** The answer's own top-level properties (a credits tool answers a quote or its result: the result's). */
const topLevel = (schema: unknown): ReadonlyArray<Set<string>> => {
  if (!isObject(schema)) return []
  if (Array.isArray(schema["anyOf"])) return schema["anyOf"].flatMap(topLevel)
  return isObject(schema["properties"]) ? [new Set(Object.keys(schema["properties"]))] : []
}

const tools = sources.flatMap((source): ReadonlyArray<AnyTool> => source.tools)
const aggregates = tools.filter((tool) => tool.spec.aggregate)

describe("aggregate tools", () => {
  it("are declared on the tools whose answers sum figures", () => {
    assert.includeMembers(aggregates.map((t) => t.spec.id), ["usage", "people_reveal", "company_enrich", "sii.rcv.resumen.consultar"])
  })

  for (const tool of aggregates) {
    it(`${tool.spec.id} answers each total with its average and a ref to cite them`, () => {
      const schema = toJsonSchema(tool.output)
      const names = [...propertyNames(schema)]
      assert.isTrue(topLevel(schema).some((props) => props.has("ref")), `${tool.spec.id} answers no ref`)
      assert.isTrue(names.some((n) => /total/i.test(n)), `${tool.spec.id} answers no total`)
      assert.isTrue(names.some((n) => /average|promedio/i.test(n)), `${tool.spec.id} answers no average`)
    })
  }
})
