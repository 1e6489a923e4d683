import { BuiltInOptions, CliConfig, CommandDescriptor, CommandDirective, HelpDoc, Options } from "@effect/cli"
import { Console, Effect, Either } from "effect"
import type { Described } from "./CommandLine.ts"

/** What an option of this kind says with no description of its own: its type's sentence (what comes first). */
const said = <A>(option: Options.Options<A>) => {
  const help = Options.getHelp(option)
  return HelpDoc.isDescriptionList(help) ? help.definitions.map(([, block]) => HelpDoc.toAnsiText(block).trim().split("\n")[0] ?? "") : []
}

const EXISTS = ["yes", "no", "either"] as const

/** What @effect/cli says of a value by its type alone ("A user-defined piece of text.", "An integer."). */
const generic = new Set([
  ...said(Options.text("x")),
  ...said(Options.integer("x")),
  ...said(Options.float("x")),
  ...said(Options.boolean("x")),
  ...said(Options.date("x")),
  ...said(Options.redacted("x")),
  ...EXISTS.flatMap((exists) => [...said(Options.file("x", { exists })), ...said(Options.directory("x", { exists }))])
])
// "One of the following: a, b": the usage line already shows the choices (`--only directory | mercado`)
const choices = said(Options.choice("x", [""]))[0] ?? "One of the following:"

const ANSI = /\x1b\[[0-9;]*m/g

const isGeneric = (line: string) => {
  const text = line.replace(ANSI, "").trim()
  return generic.has(text) || text.startsWith(choices)
}

/** A help page without the generic paragraphs, each with the blank line that followed it. */
const withoutGeneric = (page: string) => {
  const lines = page.split("\n")
  return lines.filter((line, i) => !isGeneric(line) && !(line.trim() === "" && isGeneric(lines[i - 1] ?? ""))).join("\n")
}

const programName = (program: Described) => [...CommandDescriptor.getNames(program.descriptor)].slice(0, 1)

/**
 * Runs the program given `argv` (its arguments after node and the script) with its help page in our own words.
 * @effect/cli opens the help of every option and argument with what its type is ("A user-defined piece of
 * text.") before the description given to it, and has no way to leave that out (`withDescription` appends);
 * the usage line shows the value already (`--port PORT`). Only a command line that asks for the help page is
 * affected: nothing else a command prints is rewritten.
 */
export const helpInOwnWords = (program: Described, argv: ReadonlyArray<string>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.either(CommandDescriptor.parse(program.descriptor, [...programName(program), ...argv], CliConfig.defaultConfig)),
    (parsed) =>
      Either.isRight(parsed) && CommandDirective.isBuiltIn(parsed.right) && BuiltInOptions.isShowHelp(parsed.right.option)
        ? Console.consoleWith((console) =>
          Console.withConsole(effect, {
            ...console,
            log: (...args) => console.log(...args.map((arg) => typeof arg === "string" ? withoutGeneric(arg) : arg))
          })
        )
        : effect
  )
