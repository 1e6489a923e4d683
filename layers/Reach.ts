import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Schema } from "effect"

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
 * lacks: SELECT and INSERT on every table (the record of migrations aside: the service only reads it)
 * and USAGE on every sequence. brein's relations are those of the role that ran the migrations (others
 * may share the schema, PostGIS's among them). Only roles that lack something answer, by name.
 */
export const lackingReach = Effect.fn("Database.lackingReach")(function* (roles: Statement.Fragment) {
  const sql = yield* SqlClient.SqlClient
  // CASE: a privilege function is asked only of a relation of its kind, whatever order the planner picks.
  return yield* sql`
    WITH brein AS (SELECT relowner FROM pg_class WHERE oid = to_regclass('effect_sql_migrations')),
    rels AS (SELECT c.oid, c.relname::text AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN brein b USING (relowner) WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S') AND c.relname <> 'effect_sql_migrations')
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
