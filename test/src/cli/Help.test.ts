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
        for (const sentence of GENERIC) assert.notInclude(run.stdout, sentence, command)
        assert.notMatch(run.stdout, TYPE_NAME, command)
      }
      const root = pages[0]?.run.stdout ?? ""
      // our own words stay, the usage line shows the values
      assert.include(root, "HTTP port, 1 to 65535 (env PORT, default 8787)")
      assert.include(root, "--data-dir DIR")
      assert.include(root, "Show the help documentation for a command.")
    }).pipe(Effect.scoped))
})
