import { BuiltInOptions, CliConfig, CommandDescriptor, CommandDirective, HelpDoc, Span, Usage } from "@effect/cli"
import { Array, Console, Effect, Either, HashMap, Option } from "effect"
import type { Described } from "./CommandLine.ts"
import { inOwnWords, plainText } from "./OwnWords.ts"

type Descriptor = CommandDescriptor.Command<unknown>

/** The program as its help page names it, and its commands (each group with its own). */
export interface Program {
  readonly name: string
  readonly version: string
  readonly program: Described
  readonly commands: ReadonlyArray<Described>
}

/** A command and the names that lead to it from the program's (`brein keys create`). */
interface Placed {
  readonly path: ReadonlyArray<string>
  readonly descriptor: Descriptor
}

const nameOf = (descriptor: Descriptor) => [...CommandDescriptor.getNames(descriptor)][0] ?? ""

/** A group's commands by name, in alphabetical order; none for a command that is no group. */
const subcommandsOf = (descriptor: Descriptor) =>
  [...HashMap.entries(CommandDescriptor.getSubcommands(descriptor))]
    .filter(([name]) => name !== nameOf(descriptor))
    .sort(([a], [b]) => a.localeCompare(b))

/** The commands under a command, each placed by its path: a group's own, or every command of the program and of its groups. */
const under = (app: Program, at: Placed): ReadonlyArray<Placed> =>
  at.path.length > 1
    ? subcommandsOf(at.descriptor).map(([name, descriptor]) => ({ path: [...at.path, name], descriptor }))
    : app.commands.flatMap(({ descriptor }) => {
      const command = { path: [...at.path, nameOf(descriptor)], descriptor }
      return [command, ...under(app, command)]
    })

/** The command a command line asks about, found as @effect/cli finds it: the first word that names one, at each level. */
const askedAbout = (app: Program, argv: ReadonlyArray<string>): Placed => {
  const program = { path: [app.name], descriptor: app.program.descriptor }
  const at = argv.findIndex((arg) => app.commands.some(({ descriptor }) => nameOf(descriptor) === arg))
  const command = app.commands.find(({ descriptor }) => nameOf(descriptor) === argv[at])
  if (command === undefined) return program
  const group = { path: [app.name, nameOf(command.descriptor)], descriptor: command.descriptor }
  const subcommands = subcommandsOf(command.descriptor)
  const sub = argv.slice(at + 1).flatMap((arg) => subcommands.filter(([name]) => name === arg))[0]
  return sub === undefined ? group : { path: [...group.path, sub[0]], descriptor: sub[1] }
}

/** What a group's usage ends with: @effect/cli's own (`Usage.mixed`) shows nothing. */
const aCommand = Usage.named(["<command>"], Option.none())

/**
 * A command's usage, from the program's name on: what a user types (`brein keys create [--data-dir DIR] …`,
 * `brein keys <command>`). The program itself serves without a command.
 */
const usageOf = ({ descriptor, path }: Placed) =>
  path.slice(0, -1).reduceRight(
    (usage, name) => Usage.concat(Usage.named([name], Option.none()), usage),
    path.length > 1 && subcommandsOf(descriptor).length > 0
      ? Usage.concat(CommandDescriptor.getUsage(descriptor), aCommand)
      : CommandDescriptor.getUsage(descriptor)
  )

/** A help document's blocks in order. */
const blocksOf = (doc: HelpDoc.HelpDoc): ReadonlyArray<HelpDoc.HelpDoc> =>
  HelpDoc.isSequence(doc) ? [...blocksOf(doc.left), ...blocksOf(doc.right)] : HelpDoc.isEmpty(doc) ? [] : [doc]

const isHeader = (name: string) => (doc: HelpDoc.HelpDoc) => HelpDoc.isHeader(doc) && plainText(doc) === name

/** The blocks of a command's help from its `title` section up to the next section. */
const section = (blocks: ReadonlyArray<HelpDoc.HelpDoc>, title: string) =>
  Array.takeWhile(Array.dropWhile(blocks, (doc) => !isHeader(title)(doc)).slice(1), (doc) => !HelpDoc.isHeader(doc))

const COMMANDS = "COMMANDS"

/**
 * The commands under a group, each by its whole usage with its description below it, as options are: @effect/cli
 * lists them by their usage after the group's name alone (`keys create …`) and sets every description after the
 * longest usage, far past the edge of a terminal.
 */
const commandsSection = (app: Program, at: Placed, config: CliConfig.CliConfig) =>
  Option.match(Array.match(under(app, at), { onEmpty: Option.none, onNonEmpty: Option.some }), {
    onNone: () => HelpDoc.empty,
    onSome: (commands) =>
      HelpDoc.sequence(
        HelpDoc.h1(COMMANDS),
        HelpDoc.descriptionList(Array.map(commands, (command) =>
          [
            HelpDoc.getSpan(Usage.getHelp(usageOf(command))),
            HelpDoc.blocks(section(blocksOf(CommandDescriptor.getHelp(command.descriptor, config)), "DESCRIPTION"))
          ] as const))
      )
  })

/** The help page of the command `argv` asks about, in our own words. */
const page = (app: Program, argv: ReadonlyArray<string>, config: CliConfig.CliConfig) => {
  const asked = askedAbout(app, argv)
  const help = blocksOf(CommandDescriptor.getHelp(asked.descriptor, config))
  return HelpDoc.blocks([
    HelpDoc.h1(Span.code(`${app.name} ${app.version}`)),
    HelpDoc.h1("USAGE"),
    ...Usage.enumerate(usageOf(asked), config).map((usage) => HelpDoc.p(Span.concat(Span.text("$ "), usage))),
    inOwnWords(HelpDoc.blocks(Array.takeWhile(help, (doc) => !isHeader(COMMANDS)(doc)))),
    commandsSection(app, asked, config)
  ])
}

/**
 * Runs the program given `argv` (its arguments after node and the script), with a help page of our own when the
 * command line asks for one. @effect/cli's page opens with the program's name twice (`brein`, then
 * `brein 0.1.0`), gives a command's usage from its own name (`$ create …`, no command a user can type), and says
 * under every option what its type is and that it is optional: this page is made of @effect/cli's own parts,
 * the usage from the program's name on, the type sentences left out. Nothing else a command prints is rewritten.
 */
export const helpInOwnWords = (app: Program, argv: ReadonlyArray<string>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.either(CommandDescriptor.parse(app.program.descriptor, [app.name, ...argv], CliConfig.defaultConfig)),
    (parsed): Effect.Effect<A | void, E, R> =>
      Either.isRight(parsed) && CommandDirective.isBuiltIn(parsed.right) && BuiltInOptions.isShowHelp(parsed.right.option)
        ? Console.log(HelpDoc.toAnsiText(page(app, argv, CliConfig.defaultConfig)))
        : effect
  )
