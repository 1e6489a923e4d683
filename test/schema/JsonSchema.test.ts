import { assert, describe, it } from "@effect/vitest"
import { Option, Schema, SchemaAST } from "effect"
import { sources } from "../../layers/Registry.ts"
import { isObject, type JsonObject, toJsonSchema } from "../../schema/tools/JsonSchema.ts"

/** Every `title` in a JSON Schema, with where it is; a property named `title` is walked, not counted. */
const titles = (value: unknown, at = ""): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((item, i) => titles(item, `${at}[${i}]`))
  if (typeof value !== "object" || value === null) return []
  return Object.entries(value).flatMap(([key, child]) =>
    key === "title" && typeof child === "string" ? [`${at}: ${child}`] : titles(child, `${at}.${key}`)
  )
}

const TRIMMED = "a string that will be trimmed"

/** Where a schema says only that the string will be trimmed: Trim's raw side, without the rules of what it decodes to. */
const rawOnly = (value: unknown, at = ""): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((item, i) => rawOnly(item, `${at}[${i}]`))
  if (!isObject(value)) return []
  const here = value["description"] === TRIMMED ? [at] : []
  return [...here, ...Object.entries(value).flatMap(([key, child]) => rawOnly(child, `${at}.${key}`))]
}

/**
 * Each field given a description of its own (`optionalWith(…).annotations({ description })`, `propertySignature`) whose
 * published property does not say it, with what it says instead. A struct with a defaulted field is a transformation:
 * its fields are worded on its decoded side and published from its encoded side.
 */
const unsaid = (ast: SchemaAST.AST, published: unknown, at: string): Array<string> => {
  if (!isObject(published)) return []
  // a described reference is published as { allOf: [the schema], description }
  const allOf = published["allOf"]
  if (Array.isArray(allOf) && allOf.length === 1) return unsaid(ast, allOf[0], at)
  switch (ast._tag) {
    case "Refinement":
      return unsaid(ast.from, published, at)
    case "Union": {
      const anyOf = published["anyOf"]
      return Array.isArray(anyOf) && anyOf.length === ast.types.length
        ? ast.types.flatMap((member, i) => unsaid(member, anyOf[i], `${at}|${i}`))
        : []
    }
    case "TupleType": {
      const [rest] = ast.rest
      return rest === undefined ? [] : unsaid(rest.type, published["items"], `${at}[]`)
    }
    case "TypeLiteral":
      return fieldsUnsaid(ast.propertySignatures, ast.propertySignatures, published, at)
    case "Transformation":
      return ast.transformation._tag === "TypeLiteralTransformation" && SchemaAST.isTypeLiteral(ast.from) &&
          SchemaAST.isTypeLiteral(ast.to)
        ? fieldsUnsaid(ast.from.propertySignatures, ast.to.propertySignatures, published, at)
        : []
    default:
      return []
  }
}

const fieldsUnsaid = (
  encoded: ReadonlyArray<SchemaAST.PropertySignature>,
  decoded: ReadonlyArray<SchemaAST.PropertySignature>,
  published: JsonObject,
  at: string
): Array<string> => {
  const properties = isObject(published["properties"]) ? published["properties"] : {}
  return encoded.flatMap((field) => {
    const name = String(field.name)
    const property = properties[name]
    const own = Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(decoded.find((d) => d.name === field.name) ?? field))
    const says = isObject(property) ? property["description"] : undefined
    const here = own !== undefined && says !== own ? [`${at}.${name}: ${JSON.stringify(says)}`] : []
    return [...here, ...unsaid(field.type, property, `${at}.${name}`)]
  })
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

  it("in every tool, a trimmed or cased string field shows its limits and description, not only that it will be trimmed", () => {
    const bare = sources.flatMap((source) =>
      source.tools.flatMap((tool) => rawOnly(toJsonSchema(tool.input)).map((at) => `${tool.spec.id}${at}`))
    )
    assert.deepStrictEqual(bare, [])
    const published = new Map(
      sources.flatMap((source) => source.tools.map((tool) => [tool.spec.id as string, toJsonSchema(tool.input)] as const))
    )
    const property = (id: string, name: string) => {
      const properties = published.get(id)?.["properties"]
      return isObject(properties) && isObject(properties[name]) ? properties[name] : {}
    }
    assert.deepStrictEqual(property("context_create", "title"), {
      type: "string",
      description: "The topic's title, 1–120 characters; unique (ignoring case and accents) within its area",
      minLength: 1,
      maxLength: 120
    })
    assert.deepInclude(property("context_update", "title"), { minLength: 1, maxLength: 120 })
    assert.deepInclude(property("companies_search", "q"), { minLength: 2, maxLength: 100 })
    assert.deepInclude(property("list_save", "name"), {
      maxLength: 100,
      description: "The list's name, unique in the workspace (1–100 characters)"
    })
    assert.deepInclude(property("sequence_create", "name"), { maxLength: 100 })
    assert.deepInclude(property("market_search_opportunities", "agency"), { minLength: 2, maxLength: 20 })
    assert.deepInclude(property("market_get_opportunity", "number"), {
      minLength: 5,
      maxLength: 60,
      description: "The procedure number, e.g. LA-019GYR047-E51-2025"
    })
    assert.deepInclude(property("sequence_recipients_set", "source"), { minLength: 1, maxLength: 200 })
  })

  it("in every tool, a field with a description of its own publishes it, not Effect's text for its type, also in a struct with a default", () => {
    const Input = Schema.Struct({
      limit: Schema.optionalWith(Schema.Int, { default: () => 20 }).annotations({ description: "How many" }),
      agency: Schema.optionalWith(Schema.String, { exact: true }).annotations({ description: "The buying agency" }),
      has_risk: Schema.optional(Schema.Boolean).annotations({ description: "Whether it is flagged" })
    })
    assert.deepInclude(toJsonSchema(Input)["properties"], {
      agency: { type: "string", description: "The buying agency" },
      has_risk: { type: "boolean", description: "Whether it is flagged" }
    })
    let worded = 0
    const wrong = sources.flatMap((source) =>
      source.tools.flatMap((tool) => {
        const published = toJsonSchema(tool.input)
        worded += JSON.stringify(published).split("\"description\"").length - 1
        return unsaid(tool.input.ast, published, tool.spec.id)
      })
    )
    assert.isAbove(worded, 100)
    assert.deepStrictEqual(wrong, [])
  })
})
