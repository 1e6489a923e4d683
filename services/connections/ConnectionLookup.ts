import { SqlClient } from "@effect/sql"
import { Array as Arr, Cache, Duration, Effect, Exit, Option, Schema } from "effect"
import { ConnectionId, WorkspaceId } from "../../schema/Ids.ts"
import { Channel, Signals } from "../Signals.ts"

const ConnectionRef = Schema.Struct({ id: ConnectionId, workspaceId: WorkspaceId, connector: Schema.String })
export type ConnectionRef = typeof ConnectionRef.Type
const decode = Schema.decodeUnknown(Schema.Array(ConnectionRef))
const KNOWN_TTL = Duration.seconds(30)
const CAPACITY = 10_000

interface Found {
  readonly ref: Option.Option<ConnectionRef>
  /** How many times connections were forgotten when the lookup started. */
  readonly epoch: number
}

/** Who owns a connection and which connector it belongs to: what the executor needs to authorize. */
export class ConnectionLookup extends Effect.Service<ConnectionLookup>()("brein/connections/ConnectionLookup", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const signals = yield* Signals
    let epoch = 0

    const load = Effect.fn("ConnectionLookup.load")(function* (id: string) {
      const rows = yield* sql`SELECT id, workspace_id, connector FROM connections WHERE id = ${id}`.pipe(
        Effect.flatMap(decode),
        Effect.orDie
      )
      return Arr.head(rows)
    })

    // Who owns a connection never changes, so a known one is kept until its signal says it was deleted
    // (or, should signals be lost, for KNOWN_TTL). Not kept: an unknown id (it may be created any moment),
    // a failed lookup (the database, not the id), and a lookup that started before something was forgotten.
    const cacheable = (exit: Exit.Exit<Found>) => Exit.isSuccess(exit) && Option.isSome(exit.value.ref) && exit.value.epoch === epoch
    const known = yield* Cache.makeWith({
      capacity: CAPACITY,
      lookup: (id: string) => Effect.suspend(() => Effect.map(load(id), (ref): Found => ({ ref, epoch }))),
      timeToLive: (exit) => (cacheable(exit) ? KNOWN_TTL : Duration.zero)
    })
    const drop = (id: string) =>
      Effect.suspend(() => {
        epoch += 1
        return known.invalidate(id)
      })
    const dropAll = Effect.suspend(() => {
      epoch += 1
      return known.invalidateAll
    })
    yield* signals.on(Channel.connections, drop)
    yield* signals.onReopen(dropAll)

    // Without a live LISTEN a deletion elsewhere would go unheard: then every lookup asks the database.
    const find = Effect.fn("ConnectionLookup.find")(function* (id: string) {
      if (!(yield* signals.live)) return yield* load(id)
      // A zero time to live still answers within the same millisecond (or forever on a stopped clock): drop it at once.
      const found = yield* known.get(id).pipe(Effect.onExit((exit) => (cacheable(exit) ? Effect.void : known.invalidate(id))))
      return found.ref
    })

    /** Forgets the connection here at once and in every other process when the caller's transaction commits. */
    const forget = Effect.fn("ConnectionLookup.forget")(function* (id: string) {
      yield* drop(id)
      yield* signals.publish(Channel.connections, id)
    })
    return { find, forget }
  }),
  dependencies: [Signals.Default]
}) {}
