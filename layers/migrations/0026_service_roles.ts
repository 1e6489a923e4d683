import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The roles `brein db migrate --service-role` let run the service, so that `brein db migrate` after an
 * upgrade grants them its new tables by itself. The owner's book: the service's role is granted
 * nothing on it. Roles granted before this record existed (they read the record of migrations and add
 * to the audit log; not superusers, predefined roles, the tables' owner nor its members) are recorded now.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE IF NOT EXISTS service_roles (
      role text PRIMARY KEY CHECK (role <> '' AND octet_length(role) <= 63),
      recorded_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO service_roles (role)
    SELECT r.rolname FROM pg_roles r
    WHERE NOT r.rolsuper AND r.rolname NOT LIKE 'pg\\_%'
      AND NOT pg_has_role(r.oid, (SELECT relowner FROM pg_class WHERE oid = 'effect_sql_migrations'::regclass), 'USAGE')
      AND has_table_privilege(r.oid, 'effect_sql_migrations', 'SELECT')
      AND has_table_privilege(r.oid, 'audit_log', 'INSERT')
    ON CONFLICT (role) DO NOTHING;
  `))
