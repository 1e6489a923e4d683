import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option, Redacted } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import { ChangeAudit } from "../../services/audit/ChangeAudit.ts"
import { DEMO_WORKSPACE, isWholeKey, KEY_PREFIX_LENGTH, Workspaces } from "../../services/workspace/Workspaces.ts"
import { failed, failedCommand } from "./Failure.ts"
import { database, databaseSettings, plan, workspaceFilter, workspaceOption } from "./Settings.ts"
import { table, when } from "./Table.ts"

/** Who changed a key from the command line: the operator, with the database's rights. */
const OPERATOR = "operator:cli"

const create = Command.make("create", {
  ...database,
  workspace: workspaceOption("The key's workspace, created if needed").pipe(Options.withDefault(DEMO_WORKSPACE)),
  plan: Options.optional(plan)
}, (options) =>
  Effect.gen(function* () {
    const issued = yield* (yield* ChangeAudit).audited(
      (yield* Workspaces).issueKey({ workspace: options.workspace, plan: options.plan }),
      (issued) => ({
        workspaceId: issued.workspace.id,
        principal: OPERATOR,
        surface: "library",
        toolId: "keys.create",
        connectionId: null,
        input: { workspace: options.workspace, plan: Option.getOrNull(options.plan) },
        output: {
          workspace: issued.workspace.id,
          prefix: Redacted.value(issued.key).slice(0, KEY_PREFIX_LENGTH),
          plan: issued.workspace.plan,
          plan_was: Option.getOrNull(issued.planWas)
        }
      })
    )
    yield* Effect.logInfo(`created a key for workspace "${issued.workspace.name}" (plan ${issued.workspace.plan})`)
    // a new workspace is said on stderr (stdout stays the key alone): a mistyped name is seen at once
    if (issued.created) {
      yield* Console.error(
        `brein: created workspace "${issued.workspace.name}" (plan ${issued.workspace.plan}): there was none by that name`
      )
    }
    if (Option.isSome(issued.planWas)) {
      yield* Console.error(
        `brein: workspace "${issued.workspace.name}" is now on the ${issued.workspace.plan} plan (it was on ${issued.planWas.value}); its keys answer the new plan at once`
      )
    }
    yield* Console.log(Redacted.value(issued.key))
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Make an API key; prints the key alone on stdout (it is shown only now)")
  )

const list = Command.make("list", { ...database, workspace: workspaceFilter }, (options) =>
  Effect.gen(function* () {
    const keys = yield* (yield* Workspaces).listKeys(options.workspace).pipe(failedCommand)
    yield* Console.log(table(
      ["PREFIX", "WORKSPACE", "PLAN", "CREATED", "LAST USED"],
      keys.map((k) => [k.prefix, k.workspace, k.plan, when(k.createdAt), when(k.lastUsedAt)])
    ))
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("List the active API keys by prefix (never the secret)")
  )

const revoke = Command.make("revoke", {
  ...database,
  prefix: Args.text({ name: "PREFIX" }).pipe(
    Args.withDescription("The key's prefix, as `brein keys list` shows it (the whole key works too; it is never printed)")
  )
}, (options) =>
  Effect.gen(function* () {
    const workspaces = yield* Workspaces
    const revoking = isWholeKey(options.prefix)
      ? workspaces.revokeByKey(Redacted.make(options.prefix))
      : workspaces.revokeByPrefix(options.prefix)
    const revoked = yield* (yield* ChangeAudit).audited(
      revoking.pipe(Effect.mapError(failed)),
      (revoked) =>
        revoked === undefined ? null : {
          workspaceId: revoked.workspaceId,
          principal: OPERATOR,
          surface: "library",
          toolId: "keys.revoke",
          connectionId: null,
          input: { prefix: revoked.prefix },
          output: { key: revoked.id }
        }
    )
    const shown = revoked === undefined ? options.prefix.slice(0, KEY_PREFIX_LENGTH) : revoked.prefix
    yield* Console.log(`revoked ${shown}: every running brein refuses it from now on`)
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Revoke an API key; every running process refuses it within a second")
  )

export const keys = Command.make("keys").pipe(
  Command.withDescription("API keys"),
  Command.withSubcommands([create, list, revoke])
)
