import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"

/**
 * Tables of the role that owns brein's tables that are its own books, not the service's: the record of
 * migrations (the service reads it, never writes it) and the roles `db migrate --service-role` granted
 * (the service does not touch it).
 */
export const OWNER_RECORDS = { migrations: "effect_sql_migrations", serviceRoles: "service_roles" } as const

/** The oid of the role that owns brein's tables: the one that ran the migrations (it owns their record); NULL before. */
export const breinOwner = (sql: SqlClient.SqlClient) =>
  sql`(SELECT relowner FROM pg_class WHERE oid = to_regclass(${OWNER_RECORDS.migrations}))`

/** Whether the role running the statement may grant on brein's tables: it is their owner (or a member of it), or a superuser. */
export const runnerGrantsSql = (sql: SqlClient.SqlClient) =>
  sql`(coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false)
    OR coalesce(pg_has_role(current_user, ${breinOwner(sql)}, 'USAGE'), false))`

/**
 * brein's relations (`oid`, `name`, `relkind`): the tables and sequences in `public` of the role that ran
 * the migrations. Others may share the schema, PostGIS's among them.
 */
export const breinRelations = (sql: SqlClient.SqlClient) =>
  sql`SELECT c.oid, c.relname::text AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S') AND c.relowner = ${breinOwner(sql)}`

/** The first `shown` of `names`, and an ellipsis for the rest: for a message. */
export const someOf = (names: ReadonlyArray<string>, shown = 3) => names.slice(0, shown).join(", ") + (names.length > shown ? ", …" : "")

const ReachRow = Schema.Struct({
  role: Schema.String,
  tables: Schema.Array(Schema.String),
  sequences: Schema.Array(Schema.String)
})

/** A role and what it lacks of brein's relations: tables without SELECT and INSERT, sequences without USAGE. */
export type Reach = typeof ReachRow.Type

const decodeReach = Schema.decodeUnknown(Schema.Array(ReachRow))

/**
 * What the service needs on brein's relations and each of `roles` (a fragment that selects role oids)
 * lacks: SELECT and INSERT on every table (the owner's records aside: the service only reads the one of
 * migrations) and USAGE on every sequence. Only roles that lack something answer, by name.
 */
export const lackingReach = Effect.fn("Database.lackingReach")(function* (roles: Statement.Fragment) {
  const sql = yield* SqlClient.SqlClient
  // CASE: a privilege function is asked only of a relation of its kind, whatever order the planner picks.
  return yield* sql`
    WITH rels AS (SELECT * FROM (${breinRelations(sql)}) AS relation
      WHERE name NOT IN (${OWNER_RECORDS.migrations}, ${OWNER_RECORDS.serviceRoles}))
    SELECT * FROM (
      SELECT r.rolname::text AS role,
        ARRAY(SELECT rels.name FROM rels WHERE CASE WHEN rels.relkind IN ('r', 'p')
          THEN NOT (has_table_privilege(r.oid, rels.oid, 'SELECT') AND has_table_privilege(r.oid, rels.oid, 'INSERT')) ELSE false END
          ORDER BY 1) AS tables,
        ARRAY(SELECT rels.name FROM rels WHERE CASE WHEN rels.relkind = 'S' THEN NOT has_sequence_privilege(r.oid, rels.oid, 'USAGE') ELSE false END
          ORDER BY 1) AS sequences
      FROM pg_roles r WHERE r.oid IN (${roles})) AS each_role
    WHERE cardinality(tables) + cardinality(sequences) > 0 ORDER BY role`.pipe(Effect.flatMap(decodeReach))
})
