import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    ALTER TABLE bank_accounts ADD COLUMN natural_key text;
    UPDATE bank_accounts SET natural_key = account_id;
    ALTER TABLE bank_accounts ALTER COLUMN natural_key SET NOT NULL;
    ALTER TABLE bank_accounts ADD CONSTRAINT bank_accounts_natural_key UNIQUE (connection_id, natural_key);

    ALTER TABLE bank_movements ADD COLUMN natural_key text;
    UPDATE bank_movements SET natural_key = movement_id;
    ALTER TABLE bank_movements ALTER COLUMN natural_key SET NOT NULL;
    ALTER TABLE bank_movements ADD CONSTRAINT bank_movements_natural_key UNIQUE (connection_id, natural_key);
    CREATE INDEX bank_movements_by_date ON bank_movements (connection_id, post_date, id);
  `))
