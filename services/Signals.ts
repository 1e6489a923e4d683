import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Clock, Deferred, Duration, Effect, Schedule, Stream } from "effect"
import { newId } from "./Ids.ts"

/** Channels other processes of the same database hear: an API key or a connection changed, a job is due. */
export const Channel = {
  keys: "brein_keys",
  connections: "brein_connections",
  syncJobs: "brein_sync_jobs"
} as const
export type Channel = typeof Channel[keyof typeof Channel]

type Handler = (payload: string) => Effect.Effect<void>

// Our own probe comes back on the channel once LISTEN is in place; consumers never see it.
const PROBE = "~probe:"

/**
 * Cross-process signals over PostgreSQL LISTEN/NOTIFY. A signal sent inside a transaction is delivered
 * when it commits. Delivery is best effort (a dropped listening connection loses signals), so every
 * consumer keeps a slower fallback: a cache TTL, a polling interval.
 */
export class Signals extends Effect.Service<Signals>()("brein/Signals", {
  scoped: Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope
    const handlers = new Map<string, Set<Handler>>()
    const probes = new Map<string, Deferred.Deferred<void>>()

    const dispatch = (channel: string) => (payload: string) => {
      if (!payload.startsWith(PROBE)) return Effect.forEach(handlers.get(channel) ?? [], (handler) => handler(payload), { discard: true })
      const probe = probes.get(payload)
      return probe === undefined ? Effect.void : Deferred.succeed(probe, undefined)
    }

    const send = (channel: Channel, payload: string) =>
      sql`SELECT pg_notify(${channel}, ${payload})`.pipe(Effect.orDie, Effect.asVoid)

    // Waits until this process hears its own probe: afterwards no signal on the channel is missed.
    const listen = Effect.fn("Signals.listen")(function*(channel: Channel) {
      yield* pg.listen(channel).pipe(
        Stream.runForEach(dispatch(channel)),
        Effect.catchAllCause((cause) => Effect.logWarning(`stopped listening on ${channel}`, cause)),
        Effect.forkIn(scope)
      )
      const nonce = `${PROBE}${yield* newId("probe")}`
      const heard = yield* Deferred.make<void>()
      probes.set(nonce, heard)
      // Waiting for the server is real time even when the caller's clock is a test's.
      const ready = yield* send(channel, nonce).pipe(
        Effect.zipRight(Deferred.await(heard).pipe(Effect.timeout(Duration.millis(20)))),
        Effect.retry(Schedule.recurs(100)),
        Effect.isSuccess,
        Effect.withClock(Clock.make()),
        Effect.ensuring(Effect.sync(() => probes.delete(nonce)))
      )
      if (!ready) yield* Effect.logWarning(`LISTEN ${channel} is not answering: changes from other processes arrive by polling`)
    })

    // One by one: the channels share one connection, which runs one statement at a time.
    yield* Effect.forEach(Object.values(Channel), listen, { discard: true })

    /** Runs `handler` for every signal on `channel` while the caller's scope is open. */
    const on = Effect.fn("Signals.on")(function*(channel: Channel, handler: Handler) {
      const set = handlers.get(channel) ?? new Set<Handler>()
      handlers.set(channel, set)
      yield* Effect.acquireRelease(Effect.sync(() => set.add(handler)), () => Effect.sync(() => set.delete(handler)))
    })

    /** Signals every process listening on `channel`, this one included (on commit, inside a transaction). */
    const publish = Effect.fn("Signals.publish")(function*(channel: Channel, payload: string) {
      yield* send(channel, payload)
    })

    return { on, publish }
  })
}) {}
