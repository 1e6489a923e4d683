import { SqlClient } from "@effect/sql"
import { Deferred, Effect, Fiber, Option } from "effect"
import { waitUntil } from "./Eventually.ts"

export interface Interleaving<W, E, R> {
  /** The table the read's later statement reads, held by the test in ACCESS EXCLUSIVE mode meanwhile. */
  readonly table: string
  /** How that statement's text begins (a LIKE prefix): the read is seen waiting there in pg_stat_activity. */
  readonly waitsAt: string
  /** What the wait is, for the message if it never happens. */
  readonly what: string
  /** Statements run in the lock's transaction once the read waits; they commit as the lock is let go. */
  readonly write: Effect.Effect<W, E, R>
}

/**
 * Fault injection for an answer built from several statements: commits `write` between the statements
 * of `read` that come before the one at `waitsAt` and that one on. The test takes the lock on `table`,
 * starts the read, waits until the read is blocked at `waitsAt` (or has answered, were it not to read
 * there), then runs the write in the lock's transaction and commits it. Answers what the read answered;
 * the write has committed by then.
 */
export const commitBetween = <W, E2, R2>(interleaving: Interleaving<W, E2, R2>) => <A, E, R>(read: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const writer = yield* Effect.fork(sql.withTransaction(Effect.gen(function* () {
      yield* sql.unsafe(`LOCK TABLE ${interleaving.table} IN ACCESS EXCLUSIVE MODE`).pipe(Effect.orDie)
      yield* Deferred.succeed(locked, undefined)
      yield* Deferred.await(release)
      return yield* interleaving.write
    })))
    // a writer that ends before it holds the lock (a bad table name) fails the test instead of hanging it
    yield* Effect.raceFirst(
      Deferred.await(locked),
      Effect.zipRight(Fiber.join(writer), Effect.dieMessage(`the lock on ${interleaving.table} was never held`))
    )
    const reading = yield* Effect.fork(read)
    const waiting = sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
      AND wait_event_type = 'Lock' AND query LIKE ${`${interleaving.waitsAt}%`}`.pipe(Effect.orDie)
    yield* waitUntil(
      Effect.zip(waiting, Fiber.poll(reading)),
      ([rows, answered]) => rows.length > 0 || Option.isSome(answered),
      { what: interleaving.what }
    ).pipe(Effect.ensuring(Deferred.succeed(release, undefined)))
    yield* Fiber.join(writer)
    return yield* Fiber.join(reading)
  })
