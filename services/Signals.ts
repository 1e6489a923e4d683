import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Clock, Config, Deferred, Duration, Effect, Ref, Schedule, Stream } from "effect"
import { DecimalFromString, setting } from "../schema/Setting.ts"
import { newId } from "./Ids.ts"

/** Channels other processes of the same database hear: an API key or a connection changed, a job is due, audit chains to sign. */
export const Channel = {
  keys: "brein_keys",
  connections: "brein_connections",
  syncJobs: "brein_sync_jobs",
  audit: "brein_audit"
} as const
export type Channel = typeof Channel[keyof typeof Channel]

type Handler = (payload: string) => Effect.Effect<void>

// Our own probe comes back on the channel once LISTEN is in place; consumers never see it.
const PROBE = "~probe:"
// Waiting for the server is real time even when the caller's clock is a test's.
const real = Clock.make()

/**
 * Cross-process signals over PostgreSQL LISTEN/NOTIFY. A signal sent inside a transaction is delivered
 * when it commits. The listening connection can die without a word (the driver swallows its error), so
 * this process sends itself a probe every `BREIN_SIGNALS_CHECK_SECONDS`; when one does not come back it
 * reopens LISTEN on a fresh connection, and until it hears its probe again `live` is false: consumers
 * must not trust what they cached on the strength of signals, which may have been missed meanwhile.
 */
export class Signals extends Effect.Service<Signals>()("brein/Signals", {
  scoped: Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const sql = yield* SqlClient.SqlClient
    const check = Duration.seconds(
      yield* setting("BREIN_SIGNALS_CHECK_SECONDS", DecimalFromString({ min: 0, aboveMin: true, max: 86_400, unit: "seconds" })).pipe(
        Config.withDefault(5)
      )
    )
    const handlers = new Map<string, Set<Handler>>()
    const reopened = new Set<Effect.Effect<void>>()
    const probes = new Map<string, Deferred.Deferred<void>>()
    const live = yield* Ref.make(false)
    const firstReady = yield* Deferred.make<void>()

    const dispatch = (channel: string) => (payload: string) => {
      if (!payload.startsWith(PROBE)) return Effect.forEach(handlers.get(channel) ?? [], (handler) => handler(payload), { discard: true })
      const probe = probes.get(payload)
      return probe === undefined ? Effect.void : Deferred.succeed(probe, undefined)
    }

    const send = (channel: Channel, payload: string) => sql`SELECT pg_notify(${channel}, ${payload})`.pipe(Effect.asVoid)

    /** Whether this process hears its own probe on `channel` within `tries` × 20 ms. */
    const hears = Effect.fn("Signals.hears")(function* (channel: Channel, tries: number) {
      const nonce = `${PROBE}${yield* newId("probe")}`
      const heard = yield* Deferred.make<void>()
      probes.set(nonce, heard)
      return yield* send(channel, nonce).pipe(
        Effect.zipRight(Deferred.await(heard).pipe(Effect.timeout(Duration.millis(20)))),
        Effect.retry(Schedule.recurs(tries)),
        Effect.isSuccess,
        Effect.withClock(real),
        Effect.ensuring(Effect.sync(() => probes.delete(nonce)))
      )
    })

    const channels = Object.values(Channel)
    // One LISTEN connection for every channel, held for as long as this scope lives; it ends (and the
    // driver closes the connection) when the check finds it deaf.
    const session = Effect.scoped(Effect.gen(function* () {
      // One by one: the channels share one connection, which runs one statement at a time.
      // Each LISTEN is in place once its probe comes back, before the next one is sent.
      for (const channel of channels) {
        yield* pg.listen(channel).pipe(Stream.runForEach(dispatch(channel)), Effect.forkScoped)
        if (!(yield* hears(channel, 100))) return yield* Effect.fail(`LISTEN ${channel} is not answering`)
      }
      // Signals sent while nobody listened are lost: whoever cached on the strength of them starts over.
      yield* Effect.forEach(reopened, (forgetAll) => forgetAll, { discard: true })
      yield* Ref.set(live, true)
      yield* Deferred.succeed(firstReady, undefined)
      // A generous second for the probe: a busy server must not look deaf.
      yield* hears(Channel.keys, 50).pipe(
        Effect.filterOrFail((ok) => ok, () => "the LISTEN connection stopped answering"),
        Effect.repeat(Schedule.spaced(check)),
        Effect.withClock(real)
      )
    })).pipe(Effect.ensuring(Ref.set(live, false)))

    yield* session.pipe(
      Effect.catchAllCause((cause) =>
        Effect.logWarning(
          "lost the LISTEN connection: reopening it; until then cached keys and connections are checked in the database",
          cause
        )
      ),
      Effect.repeat(Schedule.spaced(Duration.millis(500))),
      Effect.withClock(real),
      Effect.forkScoped
    )
    const ready = yield* Deferred.await(firstReady).pipe(Effect.timeout(Duration.seconds(3)), Effect.withClock(real), Effect.isSuccess)
    if (!ready) yield* Effect.logWarning("LISTEN is not answering: changes from other processes arrive by polling")

    /** Runs `handler` for every signal on `channel` while the caller's scope is open. */
    const on = Effect.fn("Signals.on")(function* (channel: Channel, handler: Handler) {
      const set = handlers.get(channel) ?? new Set<Handler>()
      handlers.set(channel, set)
      yield* Effect.acquireRelease(Effect.sync(() => set.add(handler)), () => Effect.sync(() => set.delete(handler)))
    })

    /** Runs `forgetAll` each time LISTEN is reopened (signals may have been missed), while the caller's scope is open. */
    const onReopen = Effect.fn("Signals.onReopen")(function* (forgetAll: Effect.Effect<void>) {
      yield* Effect.acquireRelease(Effect.sync(() => reopened.add(forgetAll)), () => Effect.sync(() => reopened.delete(forgetAll)))
    })

    /** Signals every process listening on `channel`, this one included (on commit, inside a transaction). */
    const publish = Effect.fn("Signals.publish")(function* (channel: Channel, payload: string) {
      yield* send(channel, payload).pipe(Effect.orDie)
    })

    return { on, onReopen, publish, live: Ref.get(live) }
  })
}) {}
