import { Either } from "effect"
import { characters } from "../Length.ts"
import { hasControlCharacter } from "../OneLine.ts"

/** The variables a topic's pattern may use: what the team knows of a prospect, its company and the sender. */
export const PATTERN_VARIABLES = [
  "nombre",
  "apellido",
  "cargo",
  "empresa",
  "industria",
  "ciudad",
  "region",
  "pais",
  "producto",
  "remitente",
  "fecha"
] as const
export type PatternVariable = (typeof PATTERN_VARIABLES)[number]

export const PATTERN_MAX = 200
export const PATTERN_MAX_VARIABLES = 8

export type Segment =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "variable"; readonly name: PatternVariable }

/** A pattern that compiled: its parts in order and the variables it needs. */
export interface CompiledPattern {
  readonly segments: ReadonlyArray<Segment>
  readonly variables: ReadonlyArray<PatternVariable>
}

const isVariable = (name: string): name is PatternVariable => (PATTERN_VARIABLES as ReadonlyArray<string>).includes(name)
// Only a name of this shape is ever repeated in an error: anything else is described, never echoed.
const NAME = /^[a-z_][a-z0-9_]{0,30}$/
const PLACEHOLDER = /^\{\{ ?([^{}]*?) ?\}\}/

/**
 * Compiles a pattern: one line of text with `{{variable}}` placeholders (a space inside the braces is
 * allowed), each a known variable, at least one and at most PATTERN_MAX_VARIABLES, two placeholders
 * always separated by some text, and no brace outside a placeholder.
 */
export const compilePattern = (pattern: string): Either.Either<CompiledPattern, string> => {
  if (pattern.trim() === "") return Either.left("must not be empty")
  const length = characters(pattern)
  if (length > PATTERN_MAX) return Either.left(`must be at most ${PATTERN_MAX} characters, got ${length}`)
  if (hasControlCharacter(pattern)) return Either.left("must be one line of text, without line breaks or control characters")
  const segments: Array<Segment> = []
  let rest = pattern
  let text = ""
  while (rest.length > 0) {
    if (rest.startsWith("{{")) {
      const match = PLACEHOLDER.exec(rest)
      if (match === null) return Either.left("has a {{ that is not closed by }} (a placeholder looks like {{empresa}})")
      const name = match[1] ?? ""
      if (name === "") return Either.left("has an empty placeholder {{}}")
      if (!NAME.test(name)) {
        return Either.left("has a placeholder whose name is not a lower-case word (a placeholder looks like {{empresa}})")
      }
      if (!isVariable(name)) return Either.left(`uses {{${name}}}, which is not a known variable (known: ${PATTERN_VARIABLES.join(", ")})`)
      if (text === "" && segments.at(-1)?.kind === "variable") {
        return Either.left("has two placeholders side by side: separate them with some text")
      }
      if (text !== "") segments.push({ kind: "text", text })
      text = ""
      segments.push({ kind: "variable", name })
      rest = rest.slice(match[0].length)
      continue
    }
    const char = rest[0] ?? ""
    if (char === "{" || char === "}") return Either.left("has a brace outside a placeholder (a placeholder looks like {{empresa}})")
    text += char
    rest = rest.slice(1)
  }
  if (text !== "") segments.push({ kind: "text", text })
  const variables = segments.flatMap((s) => (s.kind === "variable" ? [s.name] : []))
  if (variables.length === 0) return Either.left(`has no {{variable}}: a pattern is text with placeholders such as {{empresa}}`)
  if (variables.length > PATTERN_MAX_VARIABLES) {
    return Either.left(`has ${variables.length} placeholders; at most ${PATTERN_MAX_VARIABLES}`)
  }
  return Either.right({ segments, variables: [...new Set(variables)] })
}

/** The pattern filled with the given values; a variable without a value stays as its placeholder. */
export const renderPattern = (compiled: CompiledPattern, values: Partial<Record<PatternVariable, string>>) =>
  compiled.segments.map((s) => (s.kind === "text" ? s.text : values[s.name] ?? `{{${s.name}}}`)).join("")
