import { Args, Command, HelpDoc, Options } from "@effect/cli"
import { Console, Effect, Layer } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import { GrantReason } from "../../schema/budget/Budget.ts"
import { Credits } from "../../services/budget/Credits.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { counted } from "./Counted.ts"
import { failedCommand, namedWorkspace } from "./Failure.ts"
import { database, databaseSettings, decodedFlag, workspaceOption } from "./Settings.ts"

const CreditsLive = Credits.Default.pipe(Layer.provideMerge(AdminLive))

const workspace = (name: string) => namedWorkspace(Effect.flatMap(Workspaces, (workspaces) => workspaces.principalFor(name)))

const grant = Command.make("grant", {
  ...database,
  workspace: workspaceOption("The workspace's name"),
  reason: Options.text("reason").pipe(
    Options.withPseudoName("TEXT"),
    Options.withDescription("Why, as the ledger will say it (not blank)"),
    Options.mapEffect(decodedFlag("--reason", GrantReason)),
    Options.withDefault(GrantReason.make("granted by an operator"))
  ),
  amount: Args.integer({ name: "N" }).pipe(
    Args.withDescription("How many credits to add (1 to 1,000,000)"),
    // refused with the command line's other mistakes (exit 2), before any database is opened
    Args.mapEffect((n) =>
      n >= 1 && n <= 1_000_000 ? Effect.succeed(n) : Effect.fail(HelpDoc.p(`N must be between 1 and 1,000,000, not ${n}`))
    )
  )
}, (options) =>
  Effect.gen(function* () {
    const principal = yield* workspace(options.workspace)
    const balance = yield* failedCommand((yield* Credits).grant(principal.workspaceId, principal.plan, options.amount, options.reason))
    yield* Console.log(`granted ${counted(options.amount, "credit")} to "${principal.workspaceName}": balance ${balance}`)
  }).pipe(Effect.provide(CreditsLive), databaseSettings(options))).pipe(
    Command.withDescription("Add credits to a workspace (an append-only ledger entry with its reason)")
  )

const balance = Command.make("balance", {
  ...database,
  workspace: workspaceOption("The workspace's name")
}, (options) =>
  Effect.gen(function* () {
    const principal = yield* workspace(options.workspace)
    const usage = yield* (yield* Credits).usage(principal, 0)
    yield* Console.log(
      `"${principal.workspaceName}": ${counted(usage.balance, "credit")} (granted ${usage.granted_total}, spent ${usage.spent_total})`
    )
  }).pipe(Effect.provide(CreditsLive), databaseSettings(options))).pipe(Command.withDescription("A workspace's credits balance"))

export const credits = Command.make("credits").pipe(
  Command.withDescription("Workspace credits"),
  Command.withSubcommands([grant, balance])
)
