import { SqlClient } from "@effect/sql"
import { Data, Effect, Schema } from "effect"
import { breinOwner, breinRelations, lackingReach, OWNER_RECORDS, runnerGrantsSql, someOf } from "./Reach.ts"

/** Why `brein db migrate --service-role` granted nothing: said for the operator, with what to do. */
export class ServiceRoleRefused extends Data.TaggedError("ServiceRoleRefused")<{ readonly message: string }> {}

const Standing = Schema.Struct({
  runner: Schema.String,
  database: Schema.String,
  quoted: Schema.String,
  exists: Schema.Boolean,
  superuser: Schema.Boolean,
  member: Schema.Boolean,
  ownedByRole: Schema.Array(Schema.String),
  owner: Schema.NullOr(Schema.String),
  runnerGrants: Schema.Boolean
})

/** A table whose rows a trigger refuses to change (the function `audit_append_only`), and which changes it refuses. */
const Guarded = Schema.Struct({
  name: Schema.String,
  updates: Schema.Boolean,
  deletes: Schema.Boolean,
  truncates: Schema.Boolean
})

/** brein's relations: those of the role that ran the migrations (the owner of their record), by kind. */
const Owned = Schema.Struct({ tables: Schema.Array(Schema.String), sequences: Schema.Array(Schema.String), creates: Schema.Boolean })

const rows = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknown(Schema.Array(schema))

const first = <A>(found: ReadonlyArray<A>) =>
  found[0] === undefined ? Effect.dieMessage("the catalog query answered no row") : Effect.succeed(found[0])

/** What the service role may do on one guarded table: everything but what its triggers refuse. */
export interface GuardedTable {
  readonly name: string
  readonly refused: ReadonlyArray<"UPDATE" | "DELETE" | "TRUNCATE">
}

export interface ServiceGrant {
  readonly role: string
  readonly tables: number
  readonly sequences: number
  readonly guarded: ReadonlyArray<GuardedTable>
  /** whether the role may still create tables in the schema (PUBLIC may, before PostgreSQL 15, unless revoked) */
  readonly creates: boolean
}

const refusedOf = (table: typeof Guarded.Type): GuardedTable => ({
  name: table.name,
  refused: [
    ...(table.updates ? ["UPDATE" as const] : []),
    ...(table.deletes ? ["DELETE" as const] : []),
    ...(table.truncates ? ["TRUNCATE" as const] : [])
  ]
})

/** Whether `role` can be the service's role, as the role running this sees it: refused with the reason and the remedy. */
const standingOf = Effect.fn("ServiceRole.standing")(function* (role: string) {
  const sql = yield* SqlClient.SqlClient
  const standing = yield* sql`
    SELECT current_user AS runner,
      quote_ident(current_database()) AS database,
      quote_ident(${role}) AS quoted,
      r.rolname IS NOT NULL AS exists,
      coalesce(r.rolsuper, false) AS superuser,
      r.rolname IS NOT NULL AND r.rolname <> current_user AND pg_has_role(r.rolname, current_user, 'MEMBER') AS member,
      ARRAY(SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' AND tableowner = ${role} ORDER BY 1) AS owned_by_role,
      pg_get_userbyid(${breinOwner(sql)})::text AS owner,
      ${runnerGrantsSql(sql)} AS runner_grants
    FROM (SELECT 1) AS one LEFT JOIN pg_roles r ON r.rolname = ${role}`.pipe(
    Effect.flatMap(rows(Standing)),
    Effect.flatMap(first),
    Effect.orDie
  )
  const refuse = (message: string) => Effect.fail(new ServiceRoleRefused({ message }))
  if (!standing.exists) {
    return yield* refuse(`no role named "${role}" on this server: create it first (CREATE ROLE ${standing.quoted} LOGIN PASSWORD '…')`)
  }
  if (role === standing.runner) {
    return yield* refuse(
      `"${role}" is the role running this command: run it as the role that owns brein's tables ("${
        standing.owner ?? standing.runner
      }"), naming another role, the one the service connects as`
    )
  }
  if (standing.superuser) {
    return yield* refuse(
      `"${role}" is a superuser: no privilege binds it, and it can switch the append-only triggers off; the service must connect as a role that is not`
    )
  }
  if (standing.member) {
    return yield* refuse(
      `"${role}" is a member of "${standing.runner}" and so has its rights over brein's tables: the service must connect as a role that is not (REVOKE ${standing.runner} FROM ${standing.quoted})`
    )
  }
  if (standing.ownedByRole.length > 0) {
    return yield* refuse(
      `"${role}" owns ${standing.ownedByRole.length} of brein's tables (${
        someOf(standing.ownedByRole)
      }), and an owner can switch their append-only triggers off: run brein db migrate as that role, or give the tables to the migrating role (ALTER TABLE … OWNER TO)`
    )
  }
  // brein's tables are those of the role that ran the migrations (the owner of their record)
  if (!standing.runnerGrants) {
    return yield* refuse(
      `"${standing.runner}" is not the role that owns brein's tables ("${
        standing.owner ?? "none yet"
      }", which ran the migrations) and may not grant on them: run this with that role's DATABASE_URL`
    )
  }
  return standing
})

/**
 * Lets `role` run the service on this database and nothing more, granted by the role that owns the
 * tables (which has just migrated them): it reads and writes rows and draws from sequences; it may not
 * change or remove what the append-only triggers guard (the audit log, its checkpoints, the credit
 * ledger…: the changes each table's triggers refuse, read from the database itself), nor record a
 * migration, nor create or drop anything. One transaction, which records the role (`service_roles`):
 * `regrantRecorded`, after an upgrade's migrations (which add tables), grants it the new ones.
 */
export const grantServiceRole = Effect.fn("ServiceRole.grant")(function* (role: string) {
  const sql = yield* SqlClient.SqlClient
  const standing = yield* standingOf(role)
  const to = standing.quoted
  return yield* sql.withTransaction(Effect.gen(function* () {
    const guarded = yield* sql`
      SELECT c.relname::text AS name, bool_or(t.tgtype & 16 <> 0) AS updates, bool_or(t.tgtype & 8 <> 0) AS deletes,
        bool_or(t.tgtype & 32 <> 0) AS truncates
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND t.tgfoid = to_regprocedure('audit_append_only()')
      GROUP BY c.relname ORDER BY c.relname`.pipe(Effect.flatMap(rows(Guarded)), Effect.map((found) => found.map(refusedOf)))
    // named one by one, not ON ALL TABLES: a table of another owner in the schema is not brein's to grant
    const owned = yield* sql`
      WITH rels AS (${breinRelations(sql)})
      SELECT ARRAY(SELECT name FROM rels WHERE relkind IN ('r', 'p') AND name <> ${OWNER_RECORDS.serviceRoles} ORDER BY 1) AS tables,
        ARRAY(SELECT name FROM rels WHERE relkind = 'S' ORDER BY 1) AS sequences,
        has_schema_privilege(${role}, 'public', 'CREATE') AS creates`.pipe(Effect.flatMap(rows(Owned)), Effect.flatMap(first))
    const each = (names: ReadonlyArray<string>) => names.map((name) => `public.${sqlIdentifier(name)}`).join(", ")
    yield* sql.unsafe(`GRANT CONNECT ON DATABASE ${standing.database} TO ${to}`)
    yield* sql.unsafe(`GRANT USAGE ON SCHEMA public TO ${to}`)
    if (owned.tables.length > 0) yield* sql.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE ${each(owned.tables)} TO ${to}`)
    if (owned.sequences.length > 0) yield* sql.unsafe(`GRANT USAGE ON SEQUENCE ${each(owned.sequences)} TO ${to}`)
    // the migrations' own record: the service reads which ran, never writes it
    yield* sql.unsafe(`REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON public.${OWNER_RECORDS.migrations} FROM ${to}`)
    for (const table of guarded) {
      if (table.refused.length > 0) {
        yield* sql.unsafe(`REVOKE ${table.refused.join(", ")} ON public.${sqlIdentifier(table.name)} FROM ${to}`)
      }
    }
    // so that a bare `db migrate` after an upgrade grants it the new tables
    yield* sql`INSERT INTO service_roles (role) VALUES (${role}) ON CONFLICT (role) DO NOTHING`
    return { role, tables: owned.tables.length, sequences: owned.sequences.length, creates: owned.creates, guarded } satisfies ServiceGrant
  })).pipe(Effect.orDie)
})

const decodeGrants = rows(Schema.Struct({ grants: Schema.Boolean }))

/** Whether the role running this may grant on brein's tables: it owns them (or is a member of their owner), or is a superuser. */
export const runnerGrants = Effect.fn("ServiceRole.runnerGrants")(function* () {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql`SELECT ${runnerGrantsSql(sql)} AS grants`.pipe(Effect.flatMap(decodeGrants), Effect.orDie)
  return row?.grants ?? false
})

/** What `db migrate` did with a role recorded by an earlier `--service-role`. */
export type Regrant = Data.TaggedEnum<{
  Granted: { readonly grant: ServiceGrant }
  /** the role no longer exists: it left the record */
  Gone: { readonly role: string }
  /** the role can no longer be the service's (`message` says why): it stays recorded */
  Refused: { readonly role: string; readonly message: string }
}>
export const Regrant = Data.taggedEnum<Regrant>()

const decodeRecorded = rows(Schema.Struct({ role: Schema.String, exists: Schema.Boolean }))

/**
 * Grants again each role an earlier `--service-role` recorded, `except` the one just granted: what this
 * version's migrations added, and nothing the triggers now refuse. A recorded role that no longer exists
 * leaves the record; one that can no longer be the service's (a superuser now, say) is refused as the
 * command would refuse it, and stays recorded.
 */
export const regrantRecorded = Effect.fn("ServiceRole.regrantRecorded")(function* (except: ReadonlyArray<string>) {
  const sql = yield* SqlClient.SqlClient
  const recorded = yield* sql`
    SELECT s.role, r.rolname IS NOT NULL AS exists FROM service_roles s LEFT JOIN pg_roles r ON r.rolname = s.role
    ORDER BY s.role`.pipe(Effect.flatMap(decodeRecorded), Effect.orDie)
  return yield* Effect.forEach(
    recorded.filter(({ role }) => !except.includes(role)),
    ({ exists, role }): Effect.Effect<Regrant, never, SqlClient.SqlClient> =>
      exists
        ? grantServiceRole(role).pipe(
          Effect.map((grant) => Regrant.Granted({ grant })),
          Effect.catchTag("ServiceRoleRefused", (refused) => Effect.succeed(Regrant.Refused({ role, message: refused.message })))
        )
        : sql`DELETE FROM service_roles WHERE role = ${role}`.pipe(Effect.orDie, Effect.as(Regrant.Gone({ role })))
  )
})

/**
 * Roles that were let run the service but are not recorded (granted by hand: `regrantRecorded` answers
 * for the others) and lack what the service checks at start on some of brein's tables or sequences: those an upgrade
 * added since. Superusers, predefined roles and members of the owner are not asked.
 */
export const ungrantedRoles = Effect.fn("ServiceRole.ungranted")(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* lackingReach(sql`
    SELECT r.oid FROM pg_roles r
    WHERE NOT r.rolsuper AND r.rolname NOT LIKE 'pg\\_%' AND NOT pg_has_role(r.oid, ${breinOwner(sql)}, 'USAGE')
      AND r.rolname NOT IN (SELECT role FROM service_roles)
      AND coalesce(has_table_privilege(r.oid, to_regclass(${OWNER_RECORDS.migrations}), 'SELECT'), false)
      AND coalesce(has_table_privilege(r.oid, to_regclass('audit_log'), 'INSERT'), false)`).pipe(Effect.orDie)
})

/** A table name from pg_class as a quoted identifier (brein's are lower-case words; quoting keeps any other exact). */
const sqlIdentifier = (name: string) => `"${name.replaceAll("\"", "\"\"")}"`
