import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { AdminLive } from "../../layers/Admin.ts"
import type { User } from "../../schema/humans/Human.ts"
import { ChangeAudit } from "../../services/audit/ChangeAudit.ts"
import { Users } from "../../services/humans/Users.ts"
import { CommandFailed } from "./Failure.ts"
import { database, databaseSettings } from "./Settings.ts"
import { table, when } from "./Table.ts"

const failed = (error: { readonly message: string }) => new CommandFailed({ message: error.message, exitCode: 1 })

const workspace = Options.text("workspace").pipe(Options.withDescription("The user's workspace (it must exist)"))
const email = Options.text("email").pipe(Options.withDescription("The person's email address"))

/** Who changed people from the command line: the operator, with the database's rights. */
const OPERATOR = "operator:cli"

const printLink = (users: Users, user: User) =>
  Effect.gen(function* () {
    const link = yield* (yield* ChangeAudit).audited(users.issueLink(user), (issued) => ({
      workspaceId: user.workspaceId,
      principal: OPERATOR,
      surface: "library",
      toolId: "users.link",
      connectionId: null,
      input: { user: user.id },
      output: { expires_at: issued.expiresAt.toISOString() }
    }))
    yield* Console.error(`one-time sign-in link for ${user.email}, valid until ${link.expiresAt.toISOString()} (opening it signs in once):`)
    yield* Console.log(link.url)
  })

const create = Command.make("create", { ...database, workspace, email }, (options) =>
  Effect.gen(function* () {
    const users = yield* Users
    const { created, user } = yield* (yield* ChangeAudit).audited(
      users.create(options.workspace, options.email).pipe(Effect.mapError(failed)),
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
    yield* printLink(users, user)
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Create a person of a workspace (if absent); prints a one-time sign-in link on stdout")
  )

const link = Command.make("link", { ...database, workspace, email }, (options) =>
  Effect.gen(function* () {
    const users = yield* Users
    const user = yield* users.find(options.workspace, options.email).pipe(Effect.mapError(failed))
    yield* printLink(users, user)
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(
    Command.withDescription("Print a new one-time sign-in link for a person (valid 15 minutes)")
  )

const list = Command.make("list", { ...database, workspace }, (options) =>
  Effect.gen(function* () {
    const all = yield* (yield* Users).list(options.workspace).pipe(Effect.mapError(failed))
    yield* Console.log(table(
      ["EMAIL", "CREATED", "ACTIVE SESSIONS", "LAST SIGN-IN", "DISABLED"],
      all.map((u) => [u.email, when(u.createdAt), String(u.activeSessions), when(u.lastSignInAt), when(u.disabledAt)])
    ))
  }).pipe(Effect.provide(AdminLive), databaseSettings(options))).pipe(Command.withDescription("List the people of a workspace"))

export const users = Command.make("users").pipe(
  Command.withDescription("People who sign in (never API keys)"),
  Command.withSubcommands([create, link, list])
)
