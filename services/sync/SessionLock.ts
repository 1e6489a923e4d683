import { SqlClient } from "@effect/sql"
import { Cause, Clock, Config, ConfigError, Data, Deferred, Duration, Effect, Either, Option, Ref } from "effect"
import { DecimalFromString, setting } from "../../schema/Setting.ts"
import { newId } from "../Ids.ts"

/** The holder could not renew its session lease in time, or found it taken: it stopped talking to the upstream. */
export class SessionLeaseLost extends Data.TaggedError("SessionLeaseLost")<{ readonly key: string; readonly message: string }> {}

/** A held session lease: `check` runs before every upstream step; `lost` fails once the lease is gone. */
export interface SessionLease {
  readonly check: Effect.Effect<void>
  readonly lost: Effect.Effect<never, SessionLeaseLost>
}

const seconds = DecimalFromString({ min: 0, aboveMin: true, max: 86_400, unit: "seconds" })

/** The lease's lifetime and how often its holder renews it: less than half the lifetime, so that a renewal can fail once. */
export const sessionLeaseSettings = Config.all({
  ttl: setting("BREIN_SESSION_LEASE_SECONDS", seconds).pipe(Config.withDefault(30)),
  renew: setting("BREIN_SESSION_LEASE_RENEW_SECONDS", seconds).pipe(Config.withDefault(5))
}).pipe(
  Config.mapOrFail(({ renew, ttl }) =>
    renew * 2 < ttl
      ? Either.right({ ttl: Duration.seconds(ttl), renew: Duration.seconds(renew) })
      : Either.left(ConfigError.InvalidData(
        [],
        `BREIN_SESSION_LEASE_RENEW_SECONDS must be less than half of BREIN_SESSION_LEASE_SECONDS (${ttl}), not ${
          JSON.stringify(String(renew))
        }`
      ))
  )
)

// Lease arithmetic is real time, like the database clock it is measured against, whatever clock the caller runs on.
const real = Clock.make()

/**
 * One upstream session per institution user across every process (BCI permits one live session per
 * user; SII limits concurrent sessions per RUT): a lease row whose expiry is set by the database clock.
 * The holder renews it every `renew`; it stops `renew` before the lease could have run out since its last
 * confirmed renewal, so it has logged out before anyone else can take the lease. A lost database
 * connection loses nothing: the lease lives in the table, not in a session.
 */
export class SessionLock extends Effect.Service<SessionLock>()("brein/sync/SessionLock", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { renew, ttl } = yield* sessionLeaseSettings
    const interval = `${Duration.toMillis(ttl)} milliseconds`
    // How long after a renewal was sent the holder may still act on it.
    const trust = Duration.toMillis(ttl) - Duration.toMillis(renew)

    /**
     * Some(lease) while held in the caller's scope; None if another holds it now. `holder` names the holder
     * (what `holderOf` answers others); by default a new lease id.
     */
    const tryAcquire = Effect.fn("SessionLock.tryAcquire")(function* (key: string, named?: string) {
      const holder = named ?? (yield* newId("lease"))
      const sent = real.unsafeCurrentTimeMillis()
      // clock_timestamp(), not now(): a statement that waited on the row judges expiry when it runs.
      // Taken and its release registered in one uninterruptible step: a stop that interrupts the caller
      // right after the INSERT committed must not leave the lease to run out on its own.
      const taken = yield* Effect.acquireRelease(
        sql`INSERT INTO session_leases (key, holder, expires_at) VALUES (${key}, ${holder}, clock_timestamp() + ${interval}::interval)
            ON CONFLICT (key) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
            WHERE session_leases.expires_at <= clock_timestamp()
            RETURNING holder`.pipe(Effect.orDie),
        // registered first, so it runs last: after the session logged out and the renewals stopped
        (rows) =>
          rows.length === 0 ? Effect.void : sql`DELETE FROM session_leases WHERE key = ${key} AND holder = ${holder}`.pipe(Effect.ignore)
      )
      if (taken.length === 0) return Option.none<SessionLease>()
      const validUntil = yield* Ref.make(sent + trust)
      const lostSignal = yield* Deferred.make<never, SessionLeaseLost>()
      const lose = (message: string) =>
        Effect.zipRight(
          Effect.logWarning(`session lease lost: ${message}; the upstream session stops now`).pipe(Effect.annotateLogs({ lease: key })),
          Deferred.fail(lostSignal, new SessionLeaseLost({ key, message }))
        ).pipe(Effect.whenEffect(Effect.map(Deferred.isDone(lostSignal), (done) => !done)), Effect.asVoid)

      const renewOnce = Effect.gen(function* () {
        const at = real.unsafeCurrentTimeMillis()
        const rows = yield* sql`UPDATE session_leases SET expires_at = clock_timestamp() + ${interval}::interval
                                WHERE key = ${key} AND holder = ${holder} AND expires_at > clock_timestamp() RETURNING key`
        if (rows.length === 0) return yield* lose("another holder has it, or it ran out")
        yield* Ref.set(validUntil, at + trust)
      }).pipe(
        Effect.catchTag(
          "SqlError",
          (error) =>
            Effect.logWarning("session lease not renewed; trying again", Cause.fail(error)).pipe(Effect.annotateLogs({ lease: key }))
        )
      )
      // Renewal may hang on a dead connection: the deadline is watched on its own.
      const watchdog = Effect.gen(function* () {
        while (true) {
          const left = (yield* Ref.get(validUntil)) - real.unsafeCurrentTimeMillis()
          if (left <= 0) return yield* lose("it could not be renewed in time")
          yield* Effect.sleep(Duration.millis(left))
        }
      })
      yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(renew), renewOnce)).pipe(Effect.withClock(real)))
      yield* Effect.forkScoped(watchdog.pipe(Effect.withClock(real)))
      const check = Effect.gen(function* () {
        if (real.unsafeCurrentTimeMillis() >= (yield* Ref.get(validUntil))) yield* lose("it could not be renewed in time")
        if (yield* Deferred.isDone(lostSignal)) return yield* Effect.never
      })
      return Option.some<SessionLease>({ check, lost: Deferred.await(lostSignal) })
    })
    /** Who holds the lease on `key` now, if anyone does and it has not run out. */
    const holderOf = Effect.fn("SessionLock.holderOf")(function* (key: string) {
      const rows = yield* sql<{ readonly holder: string }>`SELECT holder FROM session_leases
        WHERE key = ${key} AND expires_at > clock_timestamp()`.pipe(Effect.orDie)
      return Option.fromNullable(rows[0]?.holder)
    })

    /** The keys starting with `prefix` whose lease ran out without being released: their holder stopped (a crash). */
    const expired = Effect.fn("SessionLock.expired")(function* (prefix: string) {
      const rows = yield* sql<{ readonly key: string }>`SELECT key FROM session_leases
        WHERE starts_with(key, ${prefix}) AND expires_at <= clock_timestamp() ORDER BY key`.pipe(Effect.orDie)
      return rows.map((row) => row.key)
    })

    return { tryAcquire, holderOf, expired, ttl }
  })
}) {}
