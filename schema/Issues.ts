import { Either, Option, ParseResult, SchemaAST } from "effect"
import { characters, clip } from "./Length.ts"

/** A decoding problem as the caller reads it: where, and what is wrong, in a bounded sentence. */
export interface Issue {
  readonly path: string
  readonly message: string
}

export interface RawIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

export const MAX_ISSUES = 20
/** What an issue says of a field its object does not define. */
export const NOT_A_FIELD = "is not a field this input accepts"
/** How Effect's message for such a field begins (`onExcessProperty: "error"`); `readableIssues` says it as NOT_A_FIELD. */
export const UNEXPECTED = "is unexpected"
const MAX_SHOWN = 40
const MAX_MESSAGE = 200
/** The longest issue message, whatever a schema's own message interpolates. */
const MAX_TEXT = MAX_MESSAGE * 2
/** How much of a long string a message keeps, beside its size. */
const PREFIX = 20

/** Raw issues read past the cap are counted, never formatted: their cost stays bounded whatever was sent. */
const MAX_RAW = MAX_ISSUES * 4

/** A field named like a secret: its value is never echoed in an error (only what was expected of it). */
export const SECRET_FIELD = /clave|passw|passphrase|^pass$|pwd|^pin$|token|secret|api_?key|private_?key/i

const isSecretPath = (path: ReadonlyArray<PropertyKey>) => path.some((part) => typeof part === "string" && SECRET_FIELD.test(part))

const redacted = (message: string) => {
  const at = message.indexOf(", got ")
  return at < 0 ? message : `${message.slice(0, at)} (the value sent is not shown)`
}

const count = (n: number) => n.toLocaleString("en-US")
/** `n` of a thing, said as a sentence says it: 1 character, 2 characters. */
const counted = (n: number, noun: string) => `${count(n)} ${n === 1 ? noun : `${noun}s`}`

const parseString = (text: string) => {
  if (!text.startsWith("\"")) return undefined
  const parsed = Either.try((): unknown => JSON.parse(text))
  return Either.isRight(parsed) && typeof parsed.right === "string" ? parsed.right : undefined
}

/** What was sent, never the whole of it: short values as they are, long ones by their size. */
const shown = (actual: string) => {
  const text = parseString(actual)
  if (text !== undefined) return characters(text) > MAX_SHOWN ? `a string of ${count(characters(text))} characters` : actual
  if (actual.startsWith("[")) return "an array"
  if (actual.startsWith("{")) return "an object"
  return clip(actual, MAX_SHOWN)
}

/** A quoted (JSON) string, or an unclosed quote to the end: a match never fails, so the scan stays linear. */
const QUOTED = /"(?:[^"\\]|\\[\s\S]?)*(?:"|$)/g

const sized = (quoted: string) => {
  if (quoted.length <= MAX_SHOWN) return quoted
  const text = parseString(quoted) ?? quoted.slice(1)
  return characters(text) > MAX_SHOWN ? `${JSON.stringify(clip(text, PREFIX))} (${counted(characters(text), "character")})` : quoted
}

/**
 * A message as an issue may say it: each long string it quotes (a schema's own message may quote the
 * value sent: `got ${JSON.stringify(actual)}`) by its start and its size, then clipped.
 */
const bounded = (message: string, limit: number = MAX_TEXT) => clip(message.replace(QUOTED, sized), limit)

const LENGTH = /^a string (at most|at least) (\d+) character\(s\) long$/
const EXPECTED = /^Expected ([\s\S]*?), actual ([\s\S]*)$/

/** Effect's names for the kinds of value, as a caller who sent JSON reads them. */
const KINDS: Readonly<Record<string, string>> = {
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  Struct: "a JSON object",
  object: "a JSON object",
  ReadonlyArray: "an array",
  Array: "an array"
}

/** What was expected, without the schema's internals (`Struct (Encoded side)`, a struct's whole type). */
const named = (expected: string) => {
  const bare = expected.replace(/ \((Encoded|Type) side\)$/, "")
  if (bare.startsWith("{")) return "a JSON object"
  if (/^ReadonlyArray<|^Array<|^readonly \[/.test(bare)) return "an array"
  return KINDS[bare] ?? clip(bare, MAX_MESSAGE)
}

const sentence = (message: string): { readonly expected?: string; readonly actual?: string; readonly text: string } => {
  const match = EXPECTED.exec(message)
  if (match === null) {
    if (message.startsWith("must ")) return { text: message }
    if (message.startsWith(UNEXPECTED)) return { text: NOT_A_FIELD }
    const decode = /^Unable to decode ([\s\S]*) into (an? [\w ]+)$/.exec(message)
    if (decode !== null) return { text: `must be ${decode[2] ?? "valid"}, got ${shown(decode[1] ?? "")}` }
    return { text: bounded(message, MAX_MESSAGE) }
  }
  const expected = named(match[1] ?? "")
  const actual = match[2] ?? ""
  const length = LENGTH.exec(expected)
  const text = parseString(actual)
  if (length !== null && text !== undefined) {
    return { text: `must be ${length[1]} ${counted(Number(length[2]), "character")}, got ${count(characters(text))}` }
  }
  return { expected, actual, text: `must be ${expected}, got ${shown(actual)}` }
}

const pathOf = (root: string, path: ReadonlyArray<PropertyKey>) =>
  [root, ...path.map(String)].filter((part) => part !== "").join(".") || "body"

/** Readable issues: one sentence per field (alternatives of one field merged), long values described by their size. */
export const readableIssues = (all: ReadonlyArray<RawIssue>, root: string): ReadonlyArray<Issue> => {
  const raw = all.length > MAX_RAW ? all.slice(0, MAX_RAW) : all
  const merged: Array<{ path: string; secret: boolean; expected: Array<string>; actual?: string; text: string }> = []
  // an optional field's "or undefined" says nothing the other alternatives do not
  const paths = new Map<string, number>()
  for (const issue of raw) paths.set(pathOf(root, issue.path), (paths.get(pathOf(root, issue.path)) ?? 0) + 1)
  for (const issue of raw) {
    if (issue.message.startsWith("Expected undefined, actual") && (paths.get(pathOf(root, issue.path)) ?? 0) > 1) continue
    const path = pathOf(root, issue.path)
    const { expected, actual, text } = sentence(issue.message)
    const last = merged[merged.length - 1]
    if (last !== undefined && last.path === path && expected !== undefined && last.actual === actual && last.expected.length > 0) {
      last.expected.push(expected)
      last.text = `must be ${clip(last.expected.join(" or "), MAX_MESSAGE)}, got ${shown(actual ?? "")}`
      continue
    }
    merged.push({
      path,
      secret: isSecretPath(issue.path),
      expected: expected === undefined ? [] : [expected],
      ...(actual === undefined ? {} : { actual }),
      text
    })
  }
  return merged.map(({ path, secret, text }) => ({
    path: clip(path, MAX_MESSAGE),
    message: secret ? redacted(bounded(text)) : bounded(text)
  }))
}

const describeNumber = (value: unknown) => (typeof value === "number" ? String(value) : shown(JSON.stringify(value) ?? "nothing"))

/** A bound a refinement declares (its JSON Schema), said as a sentence about the value that broke it. */
const boundMessage = (ast: SchemaAST.Refinement, actual: unknown): string | undefined => {
  const bounds = Option.getOrUndefined(SchemaAST.getJSONSchemaAnnotation(ast)) as Readonly<Record<string, unknown>> | undefined
  if (bounds === undefined) return undefined
  const n = (key: string) => (typeof bounds[key] === "number" ? count(bounds[key]) : undefined)
  /** A bound on a size, with its unit: "1 character", "10 items". */
  const size = (key: string, noun: string) => (typeof bounds[key] === "number" ? counted(bounds[key], noun) : undefined)
  if (typeof actual === "string") {
    const [most, least] = [size("maxLength", "character"), size("minLength", "character")]
    if (most !== undefined) return `must be at most ${most}, got ${count(characters(actual))}`
    if (least !== undefined) return `must be at least ${least}, got ${count(characters(actual))}`
  }
  if (Array.isArray(actual)) {
    const [most, least] = [size("maxItems", "item"), size("minItems", "item")]
    if (most !== undefined) return `must have at most ${most}, got ${count(actual.length)}`
    if (least !== undefined) return `must have at least ${least}, got ${count(actual.length)}`
  }
  if (n("minimum") !== undefined && n("maximum") !== undefined) {
    return `must be between ${n("minimum")} and ${n("maximum")}, got ${describeNumber(actual)}`
  }
  if (n("minimum") !== undefined) return `must be at least ${n("minimum")}, got ${describeNumber(actual)}`
  if (n("maximum") !== undefined) return `must be at most ${n("maximum")}, got ${describeNumber(actual)}`
  if (n("exclusiveMinimum") !== undefined) return `must be greater than ${n("exclusiveMinimum")}, got ${describeNumber(actual)}`
  if (n("exclusiveMaximum") !== undefined) return `must be less than ${n("exclusiveMaximum")}, got ${describeNumber(actual)}`
  if (bounds["type"] === "integer") return `must be an integer, got ${describeNumber(actual)}`
  return undefined
}

/** The number an integer check refused below a refinement, when that check is what failed. */
const refusedInteger = (issue: ParseResult.ParseIssue): number | undefined => {
  let inner = issue
  while (inner._tag === "Refinement" && inner.kind === "From") inner = inner.issue
  if (inner._tag !== "Refinement") return undefined
  // the number judged, after any transformation below the check (NumberFromString)
  const judged = inner.issue._tag === "Type" ? inner.issue.actual : inner.actual
  const declared = Option.getOrUndefined(SchemaAST.getJSONSchemaAnnotation(inner.ast)) as Readonly<Record<string, unknown>> | undefined
  return declared?.["type"] === "integer" && typeof judged === "number" ? judged : undefined
}

/**
 * A number out of the range a schema declares around its integer check is told the range, though the
 * integer check came first: 1e300 is no safe integer, but what is wrong with it is its size.
 */
const outOfRange = (issue: ParseResult.Refinement): ParseResult.ParseIssue | undefined => {
  if (issue.kind !== "From") return undefined
  const n = refusedInteger(issue.issue)
  if (n === undefined) return undefined
  return Option.getOrUndefined(
    Option.map(issue.ast.filter(n, {}, issue.ast), (refused) => new ParseResult.Refinement(issue.ast, n, "Predicate", refused))
  )
}

const hasMessage = (issue: ParseResult.ParseIssue) => "ast" in issue && Option.isSome(SchemaAST.getMessageAnnotation(issue.ast))

/** Like Effect's ArrayFormatter (whose messages it keeps), with declared bounds said from the value's size. */
const collect = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>, out: Array<RawIssue>): void => {
  if (out.length >= MAX_RAW) return
  const range = issue._tag === "Refinement" ? outOfRange(issue) : undefined
  if (range !== undefined) return collect(range, path, out)
  if (!hasMessage(issue)) {
    switch (issue._tag) {
      case "Pointer":
        return collect(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])], out)
      case "Composite":
        for (const inner of Array.isArray(issue.issues) ? issue.issues : [issue.issues]) collect(inner, path, out)
        return
      case "Transformation":
        return collect(issue.issue, path, out)
      case "Refinement": {
        if (issue.kind === "From") return collect(issue.issue, path, out)
        // The value the predicate judged: after a transformation under the refinement (Trim, NumberFromString),
        // not the input (`issue.actual`): "   " trimmed is a name of 0 characters, not 3.
        const judged = issue.issue._tag === "Type" ? issue.issue.actual : issue.actual
        const bound = boundMessage(issue.ast, judged)
        if (bound !== undefined) return void out.push({ path, message: bound })
      }
    }
  }
  for (const formatted of ParseResult.ArrayFormatter.formatIssueSync(issue)) {
    out.push({ path: [...path, ...formatted.path], message: formatted.message })
  }
}

/** The path of every issue a tree holds, in order, without formatting any (iterative: a tree may be deep). */
function* issuePaths(root: ParseResult.ParseIssue): Generator<ReadonlyArray<PropertyKey>> {
  const stack: Array<readonly [ParseResult.ParseIssue, ReadonlyArray<PropertyKey>]> = [[root, []]]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [issue, path] = top
    if (hasMessage(issue)) {
      yield path
      continue
    }
    switch (issue._tag) {
      case "Pointer":
        stack.push([issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])]])
        break
      case "Transformation":
      case "Refinement":
        stack.push([issue.issue, path])
        break
      case "Composite": {
        const inner = Array.isArray(issue.issues)
          ? issue.issues as ReadonlyArray<ParseResult.ParseIssue>
          : [issue.issues as ParseResult.ParseIssue]
        for (let at = inner.length - 1; at >= 0; at--) {
          const next = inner[at]
          if (next !== undefined) stack.push([next, path])
        }
        break
      }
      default:
        yield path
    }
  }
}

/**
 * How many issues `readableIssues` makes of issues at these paths: one a run of them at one path (a
 * field's alternatives, an optional field's "or undefined", are one issue), as many as the runs.
 */
const runs = (paths: Iterable<ReadonlyArray<PropertyKey>>): number => {
  let n = 0
  let last: string | undefined
  for (const path of paths) {
    const key = path.map(String).join("\u0000")
    if (key !== last) n++
    last = key
  }
  return n
}

/** `issues`, read from the first MAX_RAW raw issues, and the runs of the rest counted as more. */
const withTotal = (issues: ReadonlyArray<Issue>, read: ReadonlyArray<RawIssue>, all: () => Iterable<ReadonlyArray<PropertyKey>>) => ({
  issues,
  total: read.length < MAX_RAW ? issues.length : issues.length + Math.max(0, runs(all()) - runs(read.map((issue) => issue.path)))
})

/** The first issues (formatted, at most MAX_RAW read) and how many the error holds in all, as readable issues count. */
export const issuesOf = (error: ParseResult.ParseError, root: string) => {
  const raw: Array<RawIssue> = []
  collect(error.issue, [], raw)
  return withTotal(readableIssues(raw, root), raw, () => issuePaths(error.issue))
}

/** The same of issues already formatted (an HttpApi decoding error's). */
export const issuesIn = (all: ReadonlyArray<RawIssue>, root: string) => {
  const read = all.length > MAX_RAW ? all.slice(0, MAX_RAW) : all
  return withTotal(readableIssues(read, root), read, () => all.map((issue) => issue.path))
}

/** One line for all issues: the first few, then how many more. */
export const summary = (issues: ReadonlyArray<Issue>, total: number = issues.length) => {
  const shownIssues = issues.slice(0, 3).map((issue) => `${issue.path} ${issue.message}`).join("; ")
  return total > 3 ? `${shownIssues}; and ${count(total - 3)} more` : shownIssues
}
