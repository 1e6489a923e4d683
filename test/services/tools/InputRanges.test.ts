import { assert, describe, it } from "@effect/vitest"
import { sources } from "../../../layers/Registry.ts"
import { toJsonSchema } from "../../../schema/tools/JsonSchema.ts"
import type { AnyTool } from "../../../services/tools/Tool.ts"

type Json = Readonly<Record<string, unknown>>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Every integer of a JSON Schema with where it is (through properties, items and anyOf). */
const integers = (schema: unknown, path: string, into: Array<readonly [string, Json]> = []): Array<readonly [string, Json]> => {
  if (Array.isArray(schema)) schema.forEach((s) => integers(s, path, into))
  if (!isObject(schema)) return into
  if (schema["type"] === "integer") into.push([path, schema])
  if (isObject(schema["properties"])) {
    for (const [name, value] of Object.entries(schema["properties"])) integers(value, `${path}.${name}`, into)
  }
  for (const key of ["items", "anyOf", "oneOf", "allOf"]) integers(schema[key], path, into)
  return into
}

const tools = sources.flatMap((source): ReadonlyArray<AnyTool> => source.tools)

describe("tool input integers", () => {
  it("are the fields whose ranges this test holds to", () => {
    const fields = tools.flatMap((tool) => integers(toJsonSchema(tool.input), tool.spec.id).map(([path]) => path))
    assert.includeMembers(fields, ["companies_search.employees_min", "companies_search.employees_max", "context_get.version"])
  })

  // an unbounded integer reaches PostgreSQL, whose integer and bigint refuse a larger one as a failure of the call
  for (const tool of tools) {
    const fields = integers(toJsonSchema(tool.input), tool.spec.id)
    if (fields.length === 0) continue
    it(`${tool.spec.id} declares the range of each integer it takes`, () => {
      for (const [path, field] of fields) {
        const [minimum, maximum] = [field["minimum"] ?? field["exclusiveMinimum"], field["maximum"] ?? field["exclusiveMaximum"]]
        assert.isNumber(minimum, `${path} has no minimum`)
        assert.isNumber(maximum, `${path} has no maximum`)
        assert.isAtMost(Number(maximum), Number.MAX_SAFE_INTEGER, path)
      }
    })
  }
})
