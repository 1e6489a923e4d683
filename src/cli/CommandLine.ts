import { CliConfig, CommandDescriptor, HelpDoc, Usage, ValidationError } from "@effect/cli"
import { Console, Effect, HashMap, Option } from "effect"

type Descriptor = CommandDescriptor.Command<unknown>

/** A command of the program as @effect/cli describes it. */
export interface Described {
  readonly descriptor: Descriptor
}

/** A group's subcommands by name; none for a command that is no group (@effect/cli answers such a command itself). */
const subcommandsOf = (name: string, descriptor: Descriptor) => {
  const entries = [...HashMap.entries(CommandDescriptor.getSubcommands(descriptor))]
  return entries.some(([sub]) => sub === name) ? [] : entries.sort(([a], [b]) => a.localeCompare(b))
}

const named = (descriptor: Descriptor, name: string) => [...CommandDescriptor.getNames(descriptor)].includes(name)

/** The flags of `usage` that take a value (`--plan text`), by each of their names. */
const valueFlags = (usage: Usage.Usage): ReadonlyArray<string> => {
  switch (usage._tag) {
    case "Named":
      return Option.isSome(usage.acceptedValues) ? usage.names : []
    case "Optional":
    case "Repeated":
      return valueFlags(usage.usage)
    case "Alternation":
    case "Concat":
      return [...valueFlags(usage.left), ...valueFlags(usage.right)]
    default:
      return []
  }
}

const usageLine = (path: ReadonlyArray<string>, descriptor: Descriptor) =>
  HelpDoc.p([...path, HelpDoc.toAnsiText(Usage.getHelp(CommandDescriptor.getUsage(descriptor))).trim()].join(" "))

const groupUsage = (path: ReadonlyArray<string>, subcommands: ReadonlyArray<readonly [string, Descriptor]>) =>
  HelpDoc.blocks(subcommands.map(([, descriptor]) => usageLine(path, descriptor)))

/** Says why on stderr, as @effect/cli says its own refusals, and fails with the refusal (exit 2). */
const refused = (error: ValidationError.ValidationError) =>
  Effect.zipRight(Console.error(HelpDoc.toAnsiText(error.error)), Effect.fail(error))

/**
 * What @effect/cli says badly about a command line, said before it runs: a group without its subcommand
 * (it printed the group's help and exited 0), a subcommand the group does not have (it listed the program's
 * commands, not the group's), and a flag without its value at the end (it said "unknown argument"). Each is a
 * wrong command line (exit 2); anything else is left to @effect/cli.
 */
export const checkCommandLine = (
  program: Described,
  root: Described,
  commands: ReadonlyArray<Described>,
  argv: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const programName = [...CommandDescriptor.getNames(program.descriptor)][0] ?? ""
    const [first, second] = argv
    if (first === undefined) return
    const command = commands.find(({ descriptor }) => named(descriptor, first))
    // the program's own flags, without a command (`brein --port`): it said "Invalid subcommand"
    if (command === undefined) return yield* flagWithoutValue(program, programName, [], root.descriptor, argv)
    const subcommands = subcommandsOf(first, command.descriptor)
    const group = [programName, first]
    if (subcommands.length > 0) {
      if (second === undefined) {
        return yield* refused(ValidationError.missingSubcommand(HelpDoc.blocks([
          HelpDoc.p(`${group.join(" ")} needs one of its commands:`),
          groupUsage(group, subcommands)
        ])))
      }
      const own = yield* Effect.either(CommandDescriptor.parse(command.descriptor, argv, CliConfig.defaultConfig))
      if (own._tag === "Left" && ValidationError.isCommandMismatch(own.left)) {
        return yield* refused(ValidationError.commandMismatch(HelpDoc.blocks([own.left.error, groupUsage(group, subcommands)])))
      }
    }
    const chosen = subcommands.length === 0
      ? Option.some({ path: [programName], descriptor: command.descriptor })
      : Option.map(Option.fromNullable(subcommands.find(([name]) => name === second)), ([, descriptor]) => ({ path: group, descriptor }))
    if (Option.isNone(chosen)) return
    yield* flagWithoutValue(program, programName, chosen.value.path, chosen.value.descriptor, argv)
  })

/** A flag of `descriptor` that takes a value, left at the end of the command line without one. */
const flagWithoutValue = Effect.fnUntraced(
  function* (
    program: Described,
    programName: string,
    path: ReadonlyArray<string>,
    descriptor: Descriptor,
    argv: ReadonlyArray<string>
  ) {
    const parsed = yield* Effect.either(CommandDescriptor.parse(program.descriptor, [programName, ...argv], CliConfig.defaultConfig))
    const leftover = parsed._tag === "Right" && parsed.right._tag === "UserDefined" ? parsed.right.leftover : argv.slice(-1)
    const [left] = leftover
    if (left !== undefined && valueFlags(CommandDescriptor.getUsage(descriptor)).includes(left)) {
      return yield* refused(ValidationError.missingValue(HelpDoc.blocks([
        HelpDoc.p(`${left} needs a value:`),
        usageLine(path, descriptor)
      ])))
    }
  }
)
