import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { sources } from "../../layers/Registry.ts"
import { toJsonSchema } from "../../schema/tools/JsonSchema.ts"

/** Every `title` in a JSON Schema, with where it is; a property named `title` is walked, not counted. */
const titles = (value: unknown, at = ""): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((item, i) => titles(item, `${at}[${i}]`))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, child]) =>
    key === "title" && typeof child === "string" ? [`${at}: ${child}`] : titles(child, `${at}.${key}`)
  )
}

describe("the JSON Schema of a tool's input", () => {
  it("names no filter as a title (clients show it as the field's label); the filter's rule stays in its description", () => {
    const Input = Schema.Struct({
      limit: Schema.Number.pipe(Schema.int(), Schema.between(1, 100)),
      name: Schema.String.pipe(Schema.maxLength(64)),
      title: Schema.String,
      rut: Schema.String.annotations({ title: "RUT" })
    })
    const schema = toJsonSchema(Input)
    assert.deepStrictEqual(titles(schema), [".properties.rut: RUT"], "the title a schema was given stays")
    assert.deepInclude(schema["properties"], { title: { type: "string" } }, "a field named title stays")
    assert.include(JSON.stringify(schema), "a number between 1 and 100", "the rule, said in words")
  })

  it("in every tool the service hosts, no title is a filter's name", () => {
    const leaked = sources.flatMap((source) =>
      source.tools.flatMap((tool) => titles(toJsonSchema(tool.input)).map((title) => `${tool.spec.id} ${title}`))
    ).filter((line) => /: [a-z][A-Za-z]*(\(.*\))?$/.test(line))
    assert.deepStrictEqual(leaked, [])
  })
})
