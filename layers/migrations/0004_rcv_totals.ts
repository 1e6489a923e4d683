import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    CREATE TABLE rcv_totals (
      connection_id text NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
      periodo text NOT NULL,
      perspectiva text NOT NULL,
      tipo_dte integer NOT NULL,
      documentos integer NOT NULL,
      monto_exento bigint NOT NULL,
      monto_neto bigint NOT NULL,
      monto_iva bigint NOT NULL,
      monto_total bigint NOT NULL,
      synced_at timestamptz NOT NULL,
      PRIMARY KEY (connection_id, periodo, perspectiva, tipo_dte)
    );
    DROP INDEX IF EXISTS connections_session_key;
    ALTER TABLE connections DROP COLUMN IF EXISTS credential_key;
  `))
