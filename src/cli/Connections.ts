import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import { Connections } from "../../services/connections/Connections.ts"
import { namedWorkspace } from "./Failure.ts"
import { database, databaseSettings, workspaceFilter } from "./Settings.ts"
import { table, when } from "./Table.ts"

const list = Command.make("list", { ...database, workspace: workspaceFilter }, (options) =>
  Effect.gen(function* () {
    const all = yield* namedWorkspace((yield* Connections).summaries(options.workspace))
    yield* Console.log(table(
      ["ID", "WORKSPACE", "CONNECTOR", "INSTITUTION", "STATE", "REASON", "CREATED"],
      all.map((c) => [c.id, c.workspace, c.connector, c.institution ?? "-", c.state, c.reason ?? "-", when(c.createdAt)])
    ))
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("List the upstream connections (never their credentials)")
  )

export const connections = Command.make("connections").pipe(
  Command.withDescription("Upstream connections (SII, banks)"),
  Command.withSubcommands([list])
)
