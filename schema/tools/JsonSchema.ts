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

const WORDS = new Set(["description", "title", "examples", "default"])

/** Effect's `{ allOf: [schema], description }` for a described reference, once inlined: the schema with the description. */
const described = (value: JsonObject): JsonObject => {
  const { allOf, ...words } = value
  if (!Array.isArray(allOf) || allOf.length !== 1 || !Object.keys(words).every((key) => WORDS.has(key))) return value
  const [only] = allOf
  return isObject(only) && !("$ref" in only) ? { ...only, ...words } : value
}

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
    return described(out)
  }
  const out = walk(root, []) as JsonObject
  return recursive ? { ...out, $defs: walk(defs, []) } : out
}

/** A field's own words, which a JSON Schema shows beside its type. */
const FIELD_WORDS = [SchemaAST.DescriptionAnnotationId, SchemaAST.TitleAnnotationId] as const

const fieldWords = (annotations: SchemaAST.Annotations): SchemaAST.Annotations | undefined => {
  const words = FIELD_WORDS.filter((id) => annotations[id] !== undefined)
  return words.length === 0 ? undefined : Object.fromEntries(words.map((id) => [id, annotations[id]]))
}

/**
 * The fields of a struct's encoded side with the description and title given to them on its decoded side. A struct
 * with a field that has a default is a transformation, published as its encoded side, where Effect keeps the words of
 * the defaulted fields alone: every other field annotated through its property signature (`optionalWith(…)
 * .annotations({ description })`) was published with Effect's text for its type ("a string") instead.
 */
const withFieldWords = (from: SchemaAST.TypeLiteral, to: SchemaAST.TypeLiteral): SchemaAST.TypeLiteral => {
  const decoded = new Map(to.propertySignatures.map((field) => [field.name, field.annotations]))
  const fields = from.propertySignatures.map((field) => {
    const words = fieldWords(decoded.get(field.name) ?? {})
    return words === undefined
      ? field
      : new SchemaAST.PropertySignature(field.name, field.type, field.isOptional, field.isReadonly, { ...words, ...field.annotations })
  })
  return new SchemaAST.TypeLiteral(fields, from.indexSignatures, from.annotations)
}

const same = <A>(before: ReadonlyArray<A>, after: ReadonlyArray<A>) => before.every((item, i) => item === after[i])

/** The schema's AST with every struct transformation's fields worded as on their decoded side; untouched parts stay the same nodes. */
const publishable = (ast: SchemaAST.AST, done: Map<SchemaAST.AST, SchemaAST.AST> = new Map()): SchemaAST.AST => {
  const known = done.get(ast)
  if (known !== undefined) return known
  const go = (child: SchemaAST.AST) => publishable(child, done)
  const out = rebuilt(ast, go)
  done.set(ast, out)
  return out
}

const rebuilt = (ast: SchemaAST.AST, go: (child: SchemaAST.AST) => SchemaAST.AST): SchemaAST.AST => {
  switch (ast._tag) {
    case "TypeLiteral": {
      const fields = ast.propertySignatures.map((field) => {
        const type = go(field.type)
        return type === field.type
          ? field
          : new SchemaAST.PropertySignature(field.name, type, field.isOptional, field.isReadonly, field.annotations)
      })
      const indexes = ast.indexSignatures.map((index) => {
        const type = go(index.type)
        return type === index.type ? index : new SchemaAST.IndexSignature(index.parameter, type, index.isReadonly)
      })
      return same(ast.propertySignatures, fields) && same(ast.indexSignatures, indexes)
        ? ast
        : new SchemaAST.TypeLiteral(fields, indexes, ast.annotations)
    }
    case "Transformation": {
      const from = go(ast.from)
      const to = go(ast.to)
      const worded = ast.transformation._tag === "TypeLiteralTransformation" && SchemaAST.isTypeLiteral(from) &&
          SchemaAST.isTypeLiteral(to)
        ? withFieldWords(from, to)
        : from
      return worded === ast.from && to === ast.to ? ast : new SchemaAST.Transformation(worded, to, ast.transformation, ast.annotations)
    }
    case "Refinement": {
      const from = go(ast.from)
      return from === ast.from ? ast : new SchemaAST.Refinement(from, ast.filter, ast.annotations)
    }
    case "Union": {
      const types = ast.types.map(go)
      return same(ast.types, types) ? ast : SchemaAST.Union.make(types, ast.annotations)
    }
    case "TupleType": {
      const elements = ast.elements.map((element) => {
        const type = go(element.type)
        return type === element.type ? element : new SchemaAST.OptionalType(type, element.isOptional, element.annotations)
      })
      const rest = ast.rest.map((item) => {
        const type = go(item.type)
        return type === item.type ? item : new SchemaAST.Type(type, item.annotations)
      })
      return same(ast.elements, elements) && same(ast.rest, rest)
        ? ast
        : new SchemaAST.TupleType(elements, rest, ast.isReadonly, ast.annotations)
    }
    case "Suspend":
      return new SchemaAST.Suspend(() => go(ast.f()), ast.annotations)
    case "Declaration": {
      const parameters = ast.typeParameters.map(go)
      return same(ast.typeParameters, parameters)
        ? ast
        : new SchemaAST.Declaration(parameters, ast.decodeUnknown, ast.encodeUnknown, ast.annotations)
    }
    default:
      return ast
  }
}

/** An Effect Schema as portable JSON Schema 2020-12, each field with its own description. */
export const toJsonSchema = (schema: Schema.Schema.AnyNoContext): JsonObject =>
  portable({ ...JSONSchema.make(Schema.make(publishable(schema.ast)), { target: "jsonSchema2020-12" }) })

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
