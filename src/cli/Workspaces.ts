import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { CommandFailed } from "./Failure.ts"
import { database, databaseSettings, plan, workspaceArg } from "./Settings.ts"
import { shellWord } from "./ShellWord.ts"
import { table, when } from "./Table.ts"

const list = Command.make("list", database, (options) =>
  Effect.gen(function* () {
    const all = yield* (yield* Workspaces).list()
    yield* Console.log(table(
      ["NAME", "PLAN", "KEYS", "CONNECTIONS", "CREATED"],
      all.map((w) => [w.name, w.plan, String(w.keys), String(w.connections), when(w.createdAt)])
    ))
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(Command.withDescription("List the workspaces"))

const create = Command.make("create", {
  ...database,
  name: workspaceArg,
  plan: Options.optional(plan)
}, (options) =>
  Effect.gen(function* () {
    const created = yield* (yield* Workspaces).create(options.name, Option.getOrUndefined(options.plan)).pipe(
      Effect.mapError((error) => new CommandFailed({ message: error.message, exitCode: 1 }))
    )
    yield* Console.log(
      `created workspace "${created.name}" (plan ${created.plan}); make its key with: brein keys create --workspace ${
        shellWord(created.name)
      }`
    )
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(Command.withDescription("Create a workspace"))

export const workspaces = Command.make("workspaces").pipe(
  Command.withDescription("Workspaces"),
  Command.withSubcommands([list, create])
)
