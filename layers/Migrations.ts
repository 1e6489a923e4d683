import * as NodeContext from "@effect/platform-node/NodeContext"
import { SqlClient, type SqlError } from "@effect/sql"
import { PgMigrator } from "@effect/sql-pg"
import { Array as Arr, Cause, Data, Effect, Layer, Option, Order, Schema } from "effect"
import { sqlState } from "../services/Database.ts"
import { checkDatabaseText } from "./DatabaseText.ts"
import { migrations } from "./migrations/index.ts"
import { lackingReach, someOf } from "./Reach.ts"

const lockName = "brein.migrations"

/** The migrations this build holds, as `[id, name]` in order ("0025_workspace_names_trimmed" is `[25, "workspace_names_trimmed"]`). */
export const known: ReadonlyArray<readonly [number, string]> = Arr.sort(
  Object.keys(migrations).map((key) => [Number(key.slice(0, key.indexOf("_"))), key.slice(key.indexOf("_") + 1)] as const),
  Order.mapInput(Order.number, (migration: readonly [number, string]) => migration[0])
)

export const migrationName = ([id, name]: readonly [number, string]) => `${String(id).padStart(4, "0")}_${name}`

/**
 * Pending migrations, and a role that may not apply them: the service's own role in a split where
 * another role owns the tables (README, "Append-only in the database"). It is told who can.
 */
export class MigrationsNotPermitted extends Data.TaggedError("MigrationsNotPermitted")<{
  readonly role: string
  readonly pending: ReadonlyArray<string>
  readonly reason: string
}> {
  override get message() {
    return `${this.pending.length} migration${this.pending.length === 1 ? " is" : "s are"} pending (${
      this.pending.join(", ")
    }) and the role "${this.role}" may not apply them (${this.reason}): apply them as the role that owns brein's tables, with its DATABASE_URL: brein db migrate --service-role ${this.role}`
  }
}

/**
 * A role without the service's rights on every table and sequence: never granted (it may not even read
 * which migrations ran), or granted before an upgrade's migrations added tables.
 */
export class DatabaseNotGranted extends Data.TaggedError("DatabaseNotGranted")<{ readonly role: string; readonly reason: string }> {
  override get message() {
    return `the role "${this.role}" lacks rights on brein's tables (${this.reason}): let it run the service with brein db migrate --service-role ${this.role}, as the role that owns them`
  }
}

const named = (noun: string, names: ReadonlyArray<string>) =>
  names.length === 1 ? `the ${noun} ${names[0]}` : `${names.length} ${noun}s: ${someOf(names)}`

/**
 * That the connecting role can read and add rows to every table (the record of migrations aside) and
 * draw from every sequence: so a role granted before an upgrade stops at start, not at a table's first use.
 */
const checkReach = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [reach] = yield* lackingReach(sql`SELECT oid FROM pg_roles WHERE rolname = current_user`)
  if (reach === undefined) return
  const lacks = [
    ...(reach.tables.length === 0 ? [] : [`no SELECT and INSERT on ${named("table", reach.tables)}`]),
    ...(reach.sequences.length === 0 ? [] : [`no USAGE on ${named("sequence", reach.sequences)}`])
  ]
  return yield* new DatabaseNotGranted({ role: reach.role, reason: lacks.join("; ") })
}).pipe(Effect.withSpan("Database.checkReach"))

const decodeRole = Schema.decodeUnknown(Schema.Array(Schema.Struct({ role: Schema.String })))

const currentRole = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT current_user AS role`).pipe(
  Effect.flatMap(decodeRole),
  Effect.map(([row]) => row?.role ?? "(unknown)"),
  Effect.orElseSucceed(() => "(unknown)")
)

const Applied = Schema.Array(Schema.Struct({ latest: Schema.NullOr(Schema.Number) }))
const decodeApplied = Schema.decodeUnknown(Applied)

/** The newest migration the database has recorded (0 for a database brein has never migrated), read without a lock. */
const latestApplied = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [table] = yield* decodeApplied(
    yield* sql`SELECT CASE WHEN to_regclass('effect_sql_migrations') IS NULL THEN NULL ELSE 0 END AS latest`
  )
  if (table?.latest === null || table === undefined) return 0
  const [row] = yield* decodeApplied(
    yield* sql`SELECT max(migration_id)::int AS latest FROM effect_sql_migrations`.pipe(
      Effect.catchIf(
        (error) => sqlState(error) === "42501",
        (error) => Effect.flatMap(currentRole, (role) => new DatabaseNotGranted({ role, reason: deepestMessage(error) }))
      )
    )
  )
  return row?.latest ?? 0
}).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

// PgMigrator creates its bookkeeping table before taking its own lock, so two processes
// starting on a fresh database would race on CREATE TABLE; a session advisory lock on a
// reserved connection serializes the whole run.
const withMigrationLock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const connection = yield* sql.reserve
      yield* Effect.acquireRelease(
        connection.execute("SELECT pg_advisory_lock(hashtext($1))", [lockName], undefined),
        () => Effect.ignore(connection.execute("SELECT pg_advisory_unlock(hashtext($1))", [lockName], undefined))
      )
      return yield* effect
    })
  )

/** The migrator's failure for lack of a privilege (SQLSTATE 42501), as a failure or as the defect a migration dies with. */
const privilegeFailure = (cause: Cause.Cause<unknown>) =>
  Arr.findFirst([...Cause.failures(cause), ...Cause.defects(cause)], (error) => sqlState(error) === "42501")

type MigrationFailure = PgMigrator.MigrationError | SqlError.SqlError

const notPermitted = (pending: ReadonlyArray<string>) =>
(
  cause: Cause.Cause<MigrationFailure>
): Effect.Effect<never, MigrationFailure | MigrationsNotPermitted, SqlClient.SqlClient> =>
  Option.match(privilegeFailure(cause), {
    onNone: () => Effect.failCause(cause),
    onSome: (error) => Effect.flatMap(currentRole, (role) => new MigrationsNotPermitted({ role, pending, reason: deepestMessage(error) }))
  })

const deepestMessage = (error: unknown): string => {
  let message = "permission denied"
  let current: unknown = error
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    if ("message" in current && typeof current.message === "string" && current.message !== "") message = current.message
    current = "cause" in current ? current.cause : undefined
  }
  return message
}

/**
 * Applies the migrations the database has not recorded and returns them. When none are pending it
 * takes no lock and writes nothing, so a role that may only read and write rows starts on a
 * database its owner has migrated.
 */
export const runMigrations = Effect.gen(function* () {
  const latest = yield* latestApplied
  const pending = known.filter(([id]) => id > latest)
  if (pending.length === 0) return []
  return yield* withMigrationLock(PgMigrator.run({ loader: PgMigrator.fromRecord(migrations) })).pipe(
    Effect.catchAllCause(notPermitted(pending.map(migrationName)))
  )
}).pipe(
  Effect.tap((applied) =>
    applied.length === 0
      ? Effect.void
      : Effect.log("migrations applied").pipe(
        Effect.annotateLogs("migrations", applied.map(([id, name]) => `${id}_${name}`).join(", "))
      )
  ),
  Effect.zipLeft(checkReach),
  Effect.zipLeft(checkDatabaseText),
  Effect.withSpan("Migrations.run")
)

export const MigrationsLive = Layer.effectDiscard(runMigrations).pipe(Layer.provide(NodeContext.layer))
