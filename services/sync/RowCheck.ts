import { ParseResult, Schema, SchemaAST } from "effect"

interface Field {
  readonly name: string
  readonly optional: boolean
  readonly is: (u: unknown) => boolean
}

const isPrimitive = (u: unknown): u is string | number | boolean | null =>
  u === null || typeof u === "string" || typeof u === "number" || typeof u === "boolean"

const both = (a: (u: unknown) => boolean, b: (u: unknown) => boolean) => (u: unknown) => a(u) && b(u)

/**
 * A value of the field's type that is also a value of its encoded form. A type with no transformation
 * in it (its type side is itself) only refines its encoded form: being a value of it is enough.
 */
const checkOf = (type: SchemaAST.AST) => {
  const is = ParseResult.is(Schema.make(type))
  return SchemaAST.typeAST(type) === type ? is : both(is, ParseResult.is(Schema.make(SchemaAST.encodedAST(type))))
}

/**
 * A check of rows already in their encoded (JSON) form against a struct whose fields encode to
 * themselves (strings, numbers, refinements of them, literals): a row passes when it has every
 * required field, no other field, and each value is a value of its field's type. It is the schema's
 * own check (a value passes when it is a value of both the field's type and its encoded form), done per column: a value repeated down a page (a RUT, a period, a state) is checked once
 * per page, not once per row.
 */
export const rowCheck = <A, I>(schema: Schema.Schema<A, I>) => {
  const ast = schema.ast
  if (!SchemaAST.isTypeLiteral(ast) || ast.indexSignatures.length > 0) throw new Error("rowCheck takes a struct schema")
  const fields: ReadonlyArray<Field> = ast.propertySignatures.map((p) => ({
    name: String(p.name),
    optional: p.isOptional,
    is: checkOf(p.type)
  }))
  const names = new Set(fields.map((f) => f.name))
  return (rows: ReadonlyArray<unknown>): rows is ReadonlyArray<I> => {
    const seen = fields.map(() => new Set<unknown>())
    for (const row of rows) {
      if (typeof row !== "object" || row === null || Array.isArray(row)) return false
      const record = row as Readonly<Record<string, unknown>>
      let present = 0
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!
        if (!Object.hasOwn(record, field.name)) {
          if (field.optional) continue
          return false
        }
        present++
        const value = record[field.name]
        if (isPrimitive(value)) {
          const known = seen[i]!
          if (known.has(value)) continue
          if (!field.is(value)) return false
          known.add(value)
        } else if (!field.is(value)) return false
      }
      if (present !== Object.keys(record).length) {
        for (const key of Object.keys(record)) if (!names.has(key)) return false
      }
    }
    return true
  }
}
