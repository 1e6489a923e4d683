import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The mail simulator keeps the headers a message was sent with (Nylas `custom_headers`): the dispatcher
 * sends `List-Unsubscribe` and `List-Unsubscribe-Post` (RFC 8058) with every message of a sequence.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
    ALTER TABLE mail_sim_messages ADD COLUMN headers text NOT NULL DEFAULT '[]';
  `))
