import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Schema } from "effect"
import { ConnectionId, WorkspaceId } from "../../schema/Ids.ts"

const ConnectionRef = Schema.Struct({ id: ConnectionId, workspaceId: WorkspaceId, connector: Schema.String })
export type ConnectionRef = typeof ConnectionRef.Type
const decode = Schema.decodeUnknown(Schema.Array(ConnectionRef))

/** Who owns a connection and which connector it belongs to: what the executor needs to authorize. */
export class ConnectionLookup extends Effect.Service<ConnectionLookup>()("brein/connections/ConnectionLookup", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const find = Effect.fn("ConnectionLookup.find")(function* (id: string) {
      const rows = yield* sql`SELECT id, workspace_id, connector FROM connections WHERE id = ${id}`.pipe(
        Effect.flatMap(decode),
        Effect.orDie
      )
      return Arr.head(rows)
    })
    return { find }
  })
}) {}
