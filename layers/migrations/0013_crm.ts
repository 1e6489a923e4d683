import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The CRM simulator's own state (a HubSpot-shaped portal per workspace): objects with their
 * properties, and contact → company associations. Nothing else reads these tables.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE crm_sim_objects (
      portal_id text NOT NULL,
      object_type text NOT NULL CHECK (object_type IN ('companies', 'contacts')),
      id bigint GENERATED ALWAYS AS IDENTITY (START WITH 1000001),
      properties jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (portal_id, object_type, id)
    );
    CREATE UNIQUE INDEX crm_sim_objects_brein_id ON crm_sim_objects (portal_id, object_type, (properties ->> 'brein_id'));
    CREATE TABLE crm_sim_associations (
      portal_id text NOT NULL,
      from_type text NOT NULL,
      from_id bigint NOT NULL,
      to_type text NOT NULL,
      to_id bigint NOT NULL,
      type_id integer NOT NULL,
      PRIMARY KEY (portal_id, from_type, from_id, to_type, to_id)
    );
  `))
