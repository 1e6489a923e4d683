import { SchemaAST } from "effect"
import { InvalidInput } from "../../schema/Errors.ts"

/** A field an input accepts, as its schema names it. */
interface Field {
  readonly name: string
  readonly required: boolean
}

/** Fields named in a hint; a wider input is cut with a count (its inputSchema has them all). */
const MAX_FIELDS_NAMED = 30
/** Unknown fields a hint looks for a near name of: a request full of them gets the list of fields only. */
const MAX_GUESSED = 5
const MAX_KEY_SHOWN = 40

/** The fields of a closed object input (after refinements and transformations), or nothing for any other input. */
export const fieldsOf = (ast: SchemaAST.AST): ReadonlyArray<Field> | undefined => {
  if (SchemaAST.isRefinement(ast) || SchemaAST.isTransformation(ast)) return fieldsOf(ast.from)
  if (!SchemaAST.isTypeLiteral(ast) || ast.indexSignatures.length > 0) return undefined
  return ast.propertySignatures.map((p) => ({ name: String(p.name), required: !p.isOptional }))
}

// `employeesMin`, `Employees-Min` and `employees_min` are one name
const folded = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "")

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`, or more than `most` as `most + 1`. */
const distance = (a: string, b: string, most: number): number => {
  if (Math.abs(a.length - b.length) > most) return most + 1
  let before: Array<number> = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    let least = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1)
      row.push(d)
      least = Math.min(least, d)
    }
    if (least > most) return most + 1
    before = previous
    previous = row
  }
  return previous[b.length]!
}

/** The one field `key` most likely meant: the same name written otherwise, a slip of a letter or two, or a shortening. */
const nearest = (key: string, fields: ReadonlyArray<Field>): string | undefined => {
  const k = folded(key)
  if (k === "") return undefined
  const one = (names: ReadonlyArray<string>) => (names.length === 1 ? names[0] : undefined)
  const same = fields.filter((f) => folded(f.name) === k)
  if (same.length > 0) return one(same.map((f) => f.name))
  const most = k.length <= 4 ? 1 : 2
  const scored = fields.map((f) => ({ name: f.name, d: distance(k, folded(f.name), most) })).filter((s) => s.d <= most)
  if (scored.length > 0) {
    const best = Math.min(...scored.map((s) => s.d))
    return one(scored.filter((s) => s.d === best).map((s) => s.name))
  }
  return one(fields.filter((f) => folded(f.name).startsWith(k) || k.startsWith(folded(f.name))).map((f) => f.name))
}

const shownKey = (key: string) => (key.length > MAX_KEY_SHOWN ? `${key.slice(0, MAX_KEY_SHOWN - 1)}…` : key)

const fieldList = (fields: ReadonlyArray<Field>) => {
  const named = fields.slice(0, MAX_FIELDS_NAMED).map((f) => (f.required ? `${f.name} (required)` : f.name))
  const rest = fields.length - named.length
  return rest > 0 ? `${named.join(", ")} and ${rest} more` : named.join(", ")
}

/** The fields of `raw` its input does not define: at most `MAX_GUESSED + 1` are needed to say anything. */
const unknownKeys = (raw: unknown, fields: ReadonlyArray<Field>): ReadonlyArray<string> => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return []
  const known = new Set(fields.map((f) => f.name))
  const found: Array<string> = []
  for (const key in raw) {
    if (Object.hasOwn(raw, key) && !known.has(key)) found.push(key)
    if (found.length > MAX_GUESSED) break
  }
  return found
}

/**
 * What a refusal of an input with fields it does not define says to do about it: the name the caller
 * probably meant, where one field is near enough, and the fields the tool takes. An agent that guessed
 * a field's name reads the right one in the error, instead of fetching the tool's schema to find it.
 */
export const inputGuide = (toolId: string, ast: SchemaAST.AST) => {
  const fields = fieldsOf(ast)
  if (fields === undefined) return (_raw: unknown, error: InvalidInput) => error
  const takes = fields.length === 0
    ? `${toolId} takes no fields: send an empty input ({}), or none.`
    : `${toolId} takes: ${fieldList(fields)}.`
  return (raw: unknown, error: InvalidInput): InvalidInput => {
    const unknown = unknownKeys(raw, fields)
    if (unknown.length === 0) return error
    const guesses = unknown.length > MAX_GUESSED ? [] : unknown.flatMap((key) => {
      const near = nearest(key, fields)
      return near === undefined ? [] : [`${near} (not ${shownKey(key)})`]
    })
    const hint = guesses.length > 0 ? `Did you mean ${guesses.join(", ")}? ${takes}` : takes
    return new InvalidInput({ message: error.message, issues: error.issues, hint })
  }
}
