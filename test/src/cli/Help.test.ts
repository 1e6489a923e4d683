import { CommandDescriptor } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, HashMap } from "effect"
import type { Described } from "../../../src/cli/CommandLine.ts"
import { commands } from "../../../src/cli/Program.ts"
import { runBrein, tempDataDir } from "./Brein.ts"

/** What @effect/cli writes of an option or argument by its type alone, before the description given to it. */
const GENERIC = [
  "A user-defined piece of text.",
  "A user-defined piece of text that is confidential.",
  "An integer.",
  "A floating point number.",
  "A true or false value.",
  "A date without a time-zone",
  "One of the following:",
  "An existing file",
  "A file or directory",
  "A file.",
  "A directory."
]

/** What @effect/cli writes under nearly every option; the usage line shows it (`[--port PORT]`). */
const OPTIONAL = "This setting is optional."

/** A value shown by its type's name (`--data-dir text`) where a placeholder should say what it is. */
const TYPE_NAME = /--[a-z-]+ (text|integer|float|date|boolean|choice)\b/

/** Every command line that has a help page: the program, each command, each command of a group. */
const described: ReadonlyArray<Described> = commands
const commandPaths = described.flatMap(({ descriptor }) => {
  const [name = ""] = CommandDescriptor.getNames(descriptor)
  const subcommands = [...HashMap.keys(CommandDescriptor.getSubcommands(descriptor))].filter((sub) => sub !== name)
  return [[name], ...subcommands.map((sub) => [name, sub])]
})

layer(NodeContext.layer, { timeout: "180 seconds" })("brein --help", (it) => {
  it.effect("of the program and of every command says each option in our words alone, with a placeholder that names its value", () =>
    Effect.gen(function* () {
      assert.isAbove(commandPaths.length, 30)
      const dataDir = yield* tempDataDir
      const pages = yield* Effect.forEach(
        [[], ...commandPaths],
        (path) => Effect.map(runBrein({ DATABASE_URL: "", BREIN_DATA_DIR: dataDir }, ...path, "--help"), (run) => ({ path, run })),
        { concurrency: 4 }
      )
      for (const { path, run } of pages) {
        const command = ["brein", ...path].join(" ")
        assert.strictEqual(run.exitCode, 0, `${command}: ${run.stderr}`)
        assert.include(run.stdout, "OPTIONS", command)
        for (const sentence of [...GENERIC, OPTIONAL]) assert.notInclude(run.stdout, sentence, command)
        assert.notMatch(run.stdout, TYPE_NAME, command)
        const lines = run.stdout.split("\n")
        // the program's name and version, said once
        assert.match(lines[0] ?? "", /^brein \d+\.\d+\.\d+$/, command)
        assert.notInclude(lines.map((line) => line.trim()), "brein", command)
        // a usage a user can copy: from the program's name on; a group's ends with its <command>
        const commandsAt = lines.indexOf("COMMANDS")
        const usage = new RegExp(`^\\$ ${command}${path.length === 1 && commandsAt >= 0 ? " <command>$" : "( |$)"}`)
        const usages = lines.filter((line) => line.startsWith("$ "))
        assert.isNotEmpty(usages, command)
        for (const line of usages) assert.match(line, usage, command)
        // a group's commands, each by its whole usage (its description indented below it)
        const listed = commandsAt < 0 ? [] : lines.slice(commandsAt + 1).filter((line) => line !== "" && !line.startsWith(" "))
        if (commandsAt >= 0) assert.isNotEmpty(listed, command)
        for (const line of listed) assert.match(line, new RegExp(`^${command} [a-z]`), command)
      }
      const root = pages[0]?.run.stdout ?? ""
      // our own words stay, the usage line shows the values
      assert.include(root, "HTTP port, 1 to 65535 (env PORT, default 8787)")
      assert.include(root, "--data-dir DIR")
      assert.include(root, "Show the help documentation for a command.")
      // every command of the program and of its groups, its description below it
      assert.include(root, "\nbrein keys create [--data-dir DIR] [--workspace NAME] [--plan free | paid]\n\n  Make an API key")
      assert.include(root, "\nbrein keys <command>\n\n  API keys\n")
    }).pipe(Effect.scoped))
})
