import { SchemaAST } from "effect"
import { InvalidInput } from "../../schema/Errors.ts"
import { nearestName } from "./Nearest.ts"

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

const shownKey = (key: string) => (key.length > MAX_KEY_SHOWN ? `${key.slice(0, MAX_KEY_SHOWN - 1)}…` : key)

const fieldList = (fields: ReadonlyArray<Field>) => {
  const named = fields.slice(0, MAX_FIELDS_NAMED).map((f) => (f.required ? `${f.name} (required)` : f.name))
  const rest = fields.length - named.length
  return rest > 0 ? `${named.join(", ")} and ${rest} more` : named.join(", ")
}

/** The fields of `raw` its input does not define: at most `MAX_GUESSED + 1` are needed to say anything. */
const unknownKeys = (raw: unknown, known: ReadonlySet<string>): ReadonlyArray<string> => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return []
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
  const names = fields.map((f) => f.name)
  const known = new Set(names)
  const takes = fields.length === 0
    ? `${toolId} takes no fields: send an empty input ({}), or none.`
    : `${toolId} takes: ${fieldList(fields)}.`
  return (raw: unknown, error: InvalidInput): InvalidInput => {
    const unknown = unknownKeys(raw, known)
    if (unknown.length === 0) return error
    const guesses = unknown.length > MAX_GUESSED ? [] : unknown.flatMap((key) => {
      const near = nearestName(key, names)
      return near === undefined ? [] : [`${near} (not ${shownKey(key)})`]
    })
    const hint = guesses.length > 0 ? `Did you mean ${guesses.join(", ")}? ${takes}` : takes
    return new InvalidInput({ message: error.message, issues: error.issues, hint })
  }
}
