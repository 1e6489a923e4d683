import { JSONSchema, Option, Schema, SchemaAST } from "effect"

export type JsonObject = Record<string, unknown>

export const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)

const DEF_PREFIX = "#/$defs/"

/** Effect's marker for `unknown`/`any` (`$id: "/schemas/unknown"`): it says "anything", which `{}` says portably. */
const isAnything = (value: JsonObject) => {
  const id = value["$id"]
  return id === "/schemas/unknown" || id === "/schemas/any"
}

const isEmpty = (value: unknown) => isObject(value) && Object.keys(value).length === 0

/**
 * The title Effect gives a built-in filter: its own name (`between(1, 100)`, `maxLength(64)`, `positive`).
 * Clients show a title as the field's label; the filter's description, kept, says the rule in words.
 */
const FILTER_TITLE = /^[a-z][A-Za-z]*(\(.*\))?$/

/**
 * Plain JSON Schema 2020-12 that every client reads: named definitions inlined (none is recursive
 * today; a recursive one keeps its `$defs`), no Effect `$id` markers, no `additionalProperties: {}`,
 * no filter names as titles.
 */
export const portable = (schema: JsonObject): JsonObject => {
  const { $schema: _dialect, $defs, ...root } = schema
  const defs = isObject($defs) ? $defs : {}
  let recursive = false
  const walk = (value: unknown, trail: ReadonlyArray<string>): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, trail))
    if (!isObject(value)) return value
    if (isAnything(value)) return {}
    if (value["$id"] === "/schemas/{}") return { type: "object" }
    const ref = value["$ref"]
    if (typeof ref === "string" && ref.startsWith(DEF_PREFIX)) {
      const name = ref.slice(DEF_PREFIX.length)
      const target = defs[name]
      if (trail.includes(name) || !isObject(target)) {
        recursive = true
        return value
      }
      const { $ref: _ref, ...siblings } = value
      const inlined = walk(target, [...trail, name])
      return { ...(isObject(inlined) ? inlined : {}), ...(walk(siblings, trail) as JsonObject) }
    }
    const out: JsonObject = {}
    for (const [key, child] of Object.entries(value)) {
      if (key === "$id" && typeof child === "string" && child.startsWith("/schemas/")) continue
      // a string: a property named `title` is a schema (an object) under `properties`, and stays
      if (key === "title" && typeof child === "string" && FILTER_TITLE.test(child)) continue
      const next = walk(child, trail)
      if ((key === "additionalProperties" || key === "items") && isEmpty(next)) continue
      out[key] = next
    }
    return out
  }
  const out = walk(root, []) as JsonObject
  return recursive ? { ...out, $defs: walk(defs, []) } : out
}

/** An Effect Schema as portable JSON Schema 2020-12. */
export const toJsonSchema = (schema: Schema.Schema.AnyNoContext): JsonObject =>
  portable({ ...JSONSchema.make(schema, { target: "jsonSchema2020-12" }) })

const TRIMMED_PATTERN = toJsonSchema(Schema.Trimmed)["pattern"]

/**
 * A string decoded through a transformation (trimmed, put in one case) published as what it decodes to:
 * its limits, pattern or values and its description. Effect publishes a transformation's raw side, a bare
 * string ("a string that will be trimmed"), so a client would not see them. They hold once decoded, so the
 * pattern Trim itself checks (no spaces around) is left out: a client may send them.
 */
export const publishDecoded = <A, R>(schema: Schema.Schema<A, string, R>): Schema.Schema<A, string, R> => {
  const { pattern, ...decoded } = toJsonSchema(Schema.typeSchema(schema))
  const description = SchemaAST.getDescriptionAnnotation(schema.ast)
  return schema.annotations({
    jsonSchema: {
      ...decoded,
      ...(pattern === undefined || pattern === TRIMMED_PATTERN ? {} : { pattern }),
      ...(Option.isSome(description) ? { description: description.value } : {})
    }
  })
}
