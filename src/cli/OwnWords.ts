import { HelpDoc, Options } from "@effect/cli"
import { Array } from "effect"

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g

const plain = (text: string) => text.replace(ANSI, "").trim()

/** A help document as plain text, without its styles. */
export const plainText = (doc: HelpDoc.HelpDoc) => plain(HelpDoc.toAnsiText(doc))

/** The paragraphs of a help document, in order, as plain text. */
const paragraphs = (doc: HelpDoc.HelpDoc): ReadonlyArray<string> => {
  switch (doc._tag) {
    case "Paragraph":
      return [plainText(doc)]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
    case "DescriptionList":
      return doc.definitions.flatMap(([, block]) => paragraphs(block))
    case "Enumeration":
      return doc.elements.flatMap(paragraphs)
    default:
      return []
  }
}

/** What @effect/cli says of an option of this kind, paragraph by paragraph: its type's sentence comes first. */
const said = <A>(option: Options.Options<A>) => paragraphs(Options.getHelp(option))

const EXISTS = ["yes", "no", "either"] as const

/** An option of each type @effect/cli has. */
const kinds: ReadonlyArray<Options.Options<unknown>> = [
  Options.text("x"),
  Options.integer("x"),
  Options.float("x"),
  Options.boolean("x"),
  Options.date("x"),
  Options.redacted("x"),
  ...EXISTS.flatMap((exists) => [Options.file("x", { exists }), Options.directory("x", { exists })])
]

/** What @effect/cli says of a value by its type alone ("A user-defined piece of text.", "An integer."). */
const generic = new Set(kinds.flatMap((option) => said(option).slice(0, 1)))
// "One of the following: a, b": the usage line already shows the choices (`--only directory | mercado`)
const choices = said(Options.choice("x", [""]))[0] ?? "One of the following:"
// "This setting is optional.", under nearly every option: the usage line shows it ([--plan free | paid])
const optional = said(Options.optional(Options.text("x"))).slice(1)

/** Whether a line (of a help page or a prompt) is a sentence of @effect/cli's in place of ours. */
export const isGeneric = (line: string) => {
  const text = plain(line)
  return text !== "" && (generic.has(text) || text.startsWith(choices) || optional.includes(text))
}

/**
 * A prompt's frame (the --wizard's questions) in our own words: a line of @effect/cli's sentences and the blank
 * line after it give way to blank lines above the question, so that the frame keeps its height (the prompt
 * clears as many lines as its question has when it draws the next frame).
 */
export const frameInOwnWords = (frame: string) => {
  const lines = frame.split("\n")
  const kept = lines.filter((line, i) => !isGeneric(line) && !(plain(line) === "" && isGeneric(lines[i - 1] ?? "")))
  return kept.length === lines.length ? frame : [...lines.slice(kept.length).map(() => ""), ...kept].join("\n")
}

/**
 * A help document in our own words: without the paragraphs @effect/cli adds to every option and argument,
 * what its type is ("A user-defined piece of text.") and that it is optional, which it has no way to leave
 * out (`withDescription` appends). The usage line shows both (`[--port PORT]`).
 */
export const inOwnWords = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "Paragraph":
      return isGeneric(plainText(doc)) ? HelpDoc.empty : doc
    case "Sequence":
      return HelpDoc.sequence(inOwnWords(doc.left), inOwnWords(doc.right))
    case "DescriptionList":
      return HelpDoc.descriptionList(Array.map(doc.definitions, ([span, block]) => [span, inOwnWords(block)] as const))
    case "Enumeration":
      return HelpDoc.enumeration(Array.map(doc.elements, inOwnWords))
    default:
      return doc
  }
}
