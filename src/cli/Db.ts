import { Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { Array as Arr, Console, Effect, Option } from "effect"
import { DatabaseClientLive } from "../../layers/Database.ts"
import { known, migrationName, runMigrations } from "../../layers/Migrations.ts"
import { type Reach, someOf } from "../../layers/Reach.ts"
import { grantServiceRole, Regrant, regrantRecorded, runnerGrants, type ServiceGrant, ungrantedRoles } from "../../layers/ServiceRole.ts"
import { counted } from "./Counted.ts"
import { CommandFailed } from "./Failure.ts"
import { database, databaseSettings } from "./Settings.ts"

// PostgreSQL keeps 63 bytes of a name: a longer one would be cut to another role's name.
const MAX_ROLE_BYTES = 63

const serviceRole = Options.text("service-role").pipe(
  Options.withPseudoName("ROLE"),
  Options.withDescription(
    "After migrating, grant this role what the service needs and nothing more (rows and sequences, not what the append-only triggers refuse, no DDL), and record it: later runs grant it what upgrades add"
  ),
  Options.mapEffect((role) =>
    role.trim() === "" || Buffer.byteLength(role) > MAX_ROLE_BYTES
      ? Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--service-role must name a role (1 to ${MAX_ROLE_BYTES} bytes)`)))
      : Effect.succeed(role)
  ),
  Options.optional
)

const said = (grant: ServiceGrant) =>
  [
    `granted "${grant.role}" the rows of ${counted(grant.tables, "table")} and the use of ${counted(grant.sequences, "sequence")}`,
    "what the append-only triggers refuse, it may not do either:",
    ...grant.guarded.map((table) => `  ${table.name}: no ${table.refused.join(", ")}`),
    "the record of migrations (effect_sql_migrations): read only",
    ...(grant.creates
      ? [
        `"${grant.role}" may still create tables in the schema public (PUBLIC may, before PostgreSQL 15): REVOKE CREATE ON SCHEMA public FROM PUBLIC`
      ]
      : [])
  ].join("\n")

const regranted = Regrant.$match({
  Granted: ({ grant }) =>
    `granted "${grant.role}" again (recorded by an earlier --service-role): the rows of ${counted(grant.tables, "table")} and the use of ${
      counted(grant.sequences, "sequence")
    }`,
  Gone: ({ role }) => `"${role}" was recorded by an earlier --service-role and no longer exists: it is no longer recorded`,
  Refused: ({ message, role }) => `"${role}" was recorded by an earlier --service-role and was not granted again: ${message}`
})

// a role granted by hand before an upgrade: the service would stop at start as it, naming the same relations
const stale = ({ role, sequences, tables }: Reach) => {
  const missing = [...tables, ...sequences]
  return `"${role}" was granted brein's tables before and lacks ${missing.length} of them now (${
    someOf(missing, 5)
  }): the service stops at start as that role until they are granted: brein db migrate --service-role ${role}`
}

const latest = Option.match(Arr.last(known), { onNone: () => "none", onSome: migrationName })

export const migrate = Command.make("migrate", { ...database, serviceRole }, (options) =>
  Effect.gen(function* () {
    const applied = yield* runMigrations
    yield* Console.log(
      applied.length === 0
        ? `no migrations pending (the newest this version holds: ${latest})`
        : `applied ${applied.length} migration${applied.length === 1 ? "" : "s"}: ${applied.map(migrationName).join(", ")}`
    )
    if (Option.isSome(options.serviceRole)) {
      const grant = yield* grantServiceRole(options.serviceRole.value).pipe(
        Effect.catchTag("ServiceRoleRefused", (refused) => new CommandFailed({ message: refused.message, exitCode: 1 }))
      )
      yield* Console.log(said(grant))
    }
    // only the tables' owner (or a superuser) may grant: another role's run stops at the migrations
    if (yield* runnerGrants()) {
      const again = yield* regrantRecorded(Option.toArray(options.serviceRole))
      yield* Effect.forEach(again, (regrant) => Console.log(regranted(regrant)), { discard: true })
      yield* Effect.forEach(yield* ungrantedRoles(), (role) => Console.log(stale(role)), { discard: true })
    }
  }).pipe(Effect.provide(DatabaseClientLive), databaseSettings(options))).pipe(
    Command.withDescription(
      "Apply the migrations this version holds (as the role that owns brein's tables) and grant the roles an earlier --service-role recorded what the migrations add; with --service-role, grant (and record) the role the service runs as"
    )
  )

export const db = Command.make("db").pipe(
  Command.withDescription("The database: migrations and the service's role"),
  Command.withSubcommands([migrate])
)
