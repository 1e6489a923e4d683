import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { ConnectionId, WorkspaceId } from "../../schema/Ids.ts"
import { Channel, Signals } from "../Signals.ts"

const ConnectionRef = Schema.Struct({ id: ConnectionId, workspaceId: WorkspaceId, connector: Schema.String })
export type ConnectionRef = typeof ConnectionRef.Type
const decode = Schema.decodeUnknown(Schema.Array(ConnectionRef))
const TTL_MS = 30_000

/** Who owns a connection and which connector it belongs to: what the executor needs to authorize. */
export class ConnectionLookup extends Effect.Service<ConnectionLookup>()("brein/connections/ConnectionLookup", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const signals = yield* Signals
    // Who owns a connection never changes; a deleted one is forgotten when its signal arrives; all are when LISTEN is reopened.
    const known = new Map<string, { readonly ref: ConnectionRef; readonly until: number }>()
    const drop = (id: string) => Effect.sync(() => void known.delete(id))
    yield* signals.on(Channel.connections, drop)
    yield* signals.onReopen(Effect.sync(() => known.clear()))
    const load = (id: string, now: number, remember: boolean) =>
      sql`SELECT id, workspace_id, connector FROM connections WHERE id = ${id}`.pipe(
        Effect.flatMap(decode),
        Effect.orDie,
        Effect.map(Arr.head),
        Effect.tap(Option.match({
          onNone: () => Effect.void,
          onSome: (ref) => Effect.sync(() => {
            if (!remember) return
            if (known.size >= 10_000) known.delete(known.keys().next().value ?? "")
            known.set(id, { ref, until: now + TTL_MS })
          })
        }))
      )
    // Without a live LISTEN a deletion elsewhere would go unheard: then every lookup asks the database.
    const find = (id: string) =>
      Effect.flatMap(signals.live, (live) =>
        Effect.clockWith((clock) => {
          const now = clock.unsafeCurrentTimeMillis()
          const hit = known.get(id)
          return live && hit !== undefined && hit.until > now ? Effect.succeed(Option.some(hit.ref)) : load(id, now, live)
        }))
    /** Forgets the connection here at once and in every other process when the caller's transaction commits. */
    const forget = Effect.fn("ConnectionLookup.forget")(function* (id: string) {
      yield* drop(id)
      yield* signals.publish(Channel.connections, id)
    })
    return { find, forget }
  }),
  dependencies: [Signals.Default]
}) {}
