import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import { Email, type User } from "../../schema/humans/Human.ts"
import { ChangeAudit } from "../../services/audit/ChangeAudit.ts"
import { Users } from "../../services/humans/Users.ts"
import { CommandFailed, failedCommand } from "./Failure.ts"
import { database, databaseSettings, decodedFlag, workspaceOption } from "./Settings.ts"
import { table, when } from "./Table.ts"

const workspace = workspaceOption("The user's workspace (it must exist)")
const email = Options.text("email").pipe(
  Options.withPseudoName("ADDRESS"),
  Options.withDescription("The person's email address"),
  // refused with the command line's other mistakes (exit 2), before any database is opened
  Options.mapEffect(decodedFlag("--email", Email))
)

/** Who changed people from the command line: the operator, with the database's rights. */
const OPERATOR = "operator:cli"

/** The audit row of a change to a person made from the command line. */
const personChange = (user: User, toolId: string, output: unknown) => ({
  workspaceId: user.workspaceId,
  principal: OPERATOR,
  surface: "library" as const,
  toolId,
  connectionId: null,
  input: { user: user.id },
  output
})

const printLink = (users: Users, user: User, workspace: string) =>
  Effect.gen(function* () {
    if (user.disabledAt !== null) {
      return yield* new CommandFailed({
        message:
          `${user.email} is disabled: no link signs them in (enable them first with: brein users enable --workspace ${workspace} --email ${user.email})`,
        exitCode: 1
      })
    }
    const link = yield* (yield* ChangeAudit).audited(
      users.issueLink(user),
      (issued) => personChange(user, "users.link", { expires_at: issued.expiresAt.toISOString() })
    )
    yield* Console.error(`one-time sign-in link for ${user.email}, valid until ${link.expiresAt.toISOString()} (opening it signs in once):`)
    yield* Console.log(link.url)
  })

const create = Command.make("create", { ...database, workspace, email }, (options) =>
  Effect.gen(function* () {
    const users = yield* Users
    const { created, user } = yield* (yield* ChangeAudit).audited(
      users.create(options.workspace, options.email).pipe(failedCommand),
      (made) =>
        made.created
          ? {
            workspaceId: made.user.workspaceId,
            principal: OPERATOR,
            surface: "library",
            toolId: "users.create",
            connectionId: null,
            input: { workspace: options.workspace, email: made.user.email },
            output: { user: made.user.id }
          }
          : null
    )
    yield* Console.error(created ? `created user ${user.email} in "${options.workspace}"` : `user ${user.email} already exists`)
    yield* printLink(users, user, options.workspace)
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Create a person of a workspace (if absent); prints a one-time sign-in link on stdout")
  )

const link = Command.make("link", { ...database, workspace, email }, (options) =>
  Effect.gen(function* () {
    const users = yield* Users
    const user = yield* users.find(options.workspace, options.email).pipe(failedCommand)
    yield* printLink(users, user, options.workspace)
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Print a new one-time sign-in link for a person (valid 15 minutes)")
  )

const list = Command.make("list", { ...database, workspace }, (options) =>
  Effect.gen(function* () {
    const all = yield* (yield* Users).list(options.workspace).pipe(failedCommand)
    yield* Console.log(table(
      ["EMAIL", "CREATED", "ACTIVE SESSIONS", "LAST SIGN-IN", "DISABLED"],
      all.map((u) => [u.email, when(u.createdAt), String(u.activeSessions), when(u.lastSignInAt), when(u.disabledAt)])
    ))
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(Command.withDescription("List the people of a workspace"))

const disable = Command.make("disable", { ...database, workspace, email }, (options) =>
  Effect.gen(function* () {
    const users = yield* Users
    const user = yield* users.find(options.workspace, options.email).pipe(failedCommand)
    const done = yield* (yield* ChangeAudit).audited(
      users.disable(user),
      (result) => result.disabled ? personChange(user, "users.disable", { sessions_ended: result.sessionsEnded }) : null
    )
    yield* Console.error(
      done.disabled
        ? `disabled ${user.email}: ${done.sessionsEnded} open session${done.sessionsEnded === 1 ? "" : "s"} ended, unused links expired`
        : `${user.email} was already disabled`
    )
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Disable a person: their open sessions end and their links expire now; no link signs them in until enabled")
  )

const enable = Command.make("enable", { ...database, workspace, email }, (options) =>
  Effect.gen(function* () {
    const users = yield* Users
    const user = yield* users.find(options.workspace, options.email).pipe(failedCommand)
    const done = yield* (yield* ChangeAudit).audited(
      users.enable(user),
      (result) => result.enabled ? personChange(user, "users.enable", { enabled: true }) : null
    )
    yield* Console.error(
      done.enabled
        ? `enabled ${user.email}: they sign in with a new link (brein users link --workspace ${options.workspace} --email ${user.email})`
        : `${user.email} was not disabled`
    )
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Let a disabled person sign in again; prints none of their links (brein users link makes one)")
  )

export const users = Command.make("users").pipe(
  Command.withDescription("People who sign in (never API keys)"),
  Command.withSubcommands([create, link, list, disable, enable])
)
