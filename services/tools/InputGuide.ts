import { SchemaAST } from "effect"
import { BUDGET_FIELD_NAMES, confirmHint } from "../../schema/budget/Budget.ts"
import { InvalidInput } from "../../schema/Errors.ts"
import { MAX_ISSUES, readableIssues, UNEXPECTED } from "../../schema/Issues.ts"
import { clip } from "../../schema/Length.ts"
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
const fieldsOf = (ast: SchemaAST.AST): ReadonlyArray<Field> | undefined => {
  if (SchemaAST.isRefinement(ast) || SchemaAST.isTransformation(ast)) return fieldsOf(ast.from)
  if (!SchemaAST.isTypeLiteral(ast) || ast.indexSignatures.length > 0) return undefined
  return ast.propertySignatures.map((p) => ({ name: String(p.name), required: !p.isOptional }))
}

const fieldList = (fields: ReadonlyArray<Field>) => {
  const named = fields.slice(0, MAX_FIELDS_NAMED).map((f) => (f.required ? `${f.name} (required)` : f.name))
  const rest = fields.length - named.length
  return rest > 0 ? `${named.join(", ")} and ${rest} more` : named.join(", ")
}

/** The fields of a sent input its tool does not define: every one counted, the first `MAX_ISSUES` by name. */
export interface UnknownFields {
  readonly count: number
  readonly names: ReadonlyArray<string>
}

const NONE: UnknownFields = { count: 0, names: [] }

/** One pass over what was sent (also over an input that decodes, where it finds nothing and allocates nothing). */
const unknownOf = (raw: unknown, known: ReadonlySet<string>): UnknownFields => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return NONE
  let count = 0
  let names: Array<string> | undefined
  for (const key in raw) {
    if (!Object.hasOwn(raw, key) || known.has(key)) continue
    count++
    if (count <= MAX_ISSUES) (names ??= []).push(key)
  }
  return names === undefined ? NONE : { count, names }
}

/**
 * Many unknown fields are refused by their count before the schema sees them: decoding them one issue
 * each (errors: "all") would cost time and memory in proportion to what the sender chose to send.
 * Their issues are written as the schema's would be (`readableIssues`: the same path, clipped by the
 * same rule), so a field is named alike whether it came among few unknown fields or many.
 */
const tooMany = (unknown: UnknownFields): InvalidInput | undefined => {
  if (unknown.count <= MAX_ISSUES) return undefined
  const raw = unknown.names.map((key) => ({ path: [key], message: UNEXPECTED }))
  return InvalidInput.of(readableIssues(raw, "input"), unknown.count)
}

/** How a tool's decoder treats the fields it does not define. */
export interface InputGuide {
  readonly unknownOf: (raw: unknown) => UnknownFields
  /** The refusal by count, before the schema sees the input. */
  readonly tooMany: (unknown: UnknownFields) => InvalidInput | undefined
  /**
   * `error` with the hint of what to send instead: if fields were sent that the tool does not define, or a
   * confirmed call of a credits tool lacks its quote_token or idempotency_key.
   */
  readonly hinted: (raw: unknown, unknown: UnknownFields, error: InvalidInput) => InvalidInput
}

/** An input without a closed set of fields (a record, a union): none of its fields is unknown. */
const unguided: InputGuide = { unknownOf: () => NONE, tooMany, hinted: (_raw, _unknown, error) => error }

const absent = (raw: unknown, key: string) =>
  typeof raw !== "object" || raw === null || !Object.hasOwn(raw, key) || Reflect.get(raw, key) === undefined

/**
 * A budget field refused though none was sent: both are optional, so that is `confirmedWithQuote` asking for it
 * with confirm: true. The quote_token comes first: without it, the caller has the quote to ask for.
 */
const unconfirmable = (toolId: string, raw: unknown, error: InvalidInput) => {
  const refused = (key: string) => absent(raw, key) && error.issues.some((issue) => issue.path === `input.${key}`)
  return refused("quote_token")
    ? confirmHint(toolId, "quote_token")
    : refused("idempotency_key")
    ? confirmHint(toolId, "idempotency_key")
    : undefined
}

const withHint = (error: InvalidInput, hints: ReadonlyArray<string | undefined>) => {
  const said = hints.filter((hint) => hint !== undefined)
  return said.length === 0 ? error : new InvalidInput({ message: error.message, issues: error.issues, hint: said.join(" ") })
}

/**
 * What a refusal of an input with fields it does not define says to do about it: the name the caller
 * probably meant, where one field is near enough, and the fields the tool takes. An agent that guessed
 * a field's name reads the right one in the error, instead of fetching the tool's schema to find it.
 * The fields sent are walked once (`unknownOf`); the refusal by count and the hint both read that walk.
 */
export const inputGuide = (toolId: string, ast: SchemaAST.AST): InputGuide => {
  const fields = fieldsOf(ast)
  if (fields === undefined) return unguided
  const names = fields.map((f) => f.name)
  const known = new Set(names)
  const takes = fields.length === 0
    ? `${toolId} takes no fields: send an empty input ({}), or none.`
    : `${toolId} takes: ${fieldList(fields)}.`
  const quoted = [...BUDGET_FIELD_NAMES].every((name) => known.has(name))
  const unknownHint = (unknown: UnknownFields) => {
    if (unknown.count === 0) return undefined
    const guesses = unknown.count > MAX_GUESSED ? [] : unknown.names.flatMap((key) => {
      const near = nearestName(key, names)
      return near === undefined ? [] : [`${near} (not ${clip(key, MAX_KEY_SHOWN)})`]
    })
    return guesses.length > 0 ? `Did you mean ${guesses.join(", ")}? ${takes}` : takes
  }
  const hinted = (raw: unknown, unknown: UnknownFields, error: InvalidInput): InvalidInput =>
    withHint(error, [unknownHint(unknown), quoted ? unconfirmable(toolId, raw, error) : undefined])
  return { unknownOf: (raw) => unknownOf(raw, known), tooMany, hinted }
}
