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

export interface Race<W, E, R> {
  /** The winner's statements, run in a transaction the test holds open: the rows they change stay locked until it commits. */
  readonly first: Effect.Effect<W, E, R>
  /** How the loser's statement on those rows begins (a LIKE prefix): the loser is seen waiting there in pg_stat_activity. */
  readonly waitsAt: string
  /** What the wait is, for the message if it never happens. */
  readonly what: string
}

interface Held<H, E1, R1, W, E2, R2> {
  /** Run first in the test's transaction: what it locks stays locked while the read runs. */
  readonly hold: Effect.Effect<H, E1, R1>
  /** What `hold` takes, for the message if it never does. */
  readonly held: string
  /** Run in the same transaction once the read waits, then committed. */
  readonly write: Effect.Effect<W, E2, R2>
  readonly waitsAt: string
  readonly what: string
}

/**
 * Runs `hold` in a transaction kept open until `read` is blocked at `waitsAt` (or has answered), then
 * runs `write` in it and commits. Answers what the read answered; the transaction has committed by then.
 */
const whileHeld = <H, E1, R1, W, E2, R2>(held: Held<H, E1, R1, W, E2, R2>) => <A, E, R>(read: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const holding = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const writer = yield* Effect.fork(sql.withTransaction(Effect.gen(function* () {
      yield* held.hold
      yield* Deferred.succeed(holding, undefined)
      yield* Deferred.await(release)
      return yield* held.write
    })))
    // a writer that ends before it holds its locks (a bad table name) fails the test instead of hanging it
    yield* Effect.raceFirst(
      Deferred.await(holding),
      Effect.zipRight(Fiber.join(writer), Effect.dieMessage(`${held.held} was never held`))
    )
    const reading = yield* Effect.fork(read)
    const waiting = sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
      AND wait_event_type = 'Lock' AND query LIKE ${`${held.waitsAt}%`}`.pipe(Effect.orDie)
    yield* waitUntil(
      Effect.zip(waiting, Fiber.poll(reading)),
      ([rows, answered]) => rows.length > 0 || Option.isSome(answered),
      { what: held.what }
    ).pipe(Effect.ensuring(Deferred.succeed(release, undefined)))
    yield* Fiber.join(writer)
    return yield* Fiber.join(reading)
  })

/**
 * Fault injection for an answer built from several statements: commits `write` between the statements
 * of `read` that come before the one at `waitsAt` and that one on. The test takes the lock on `table`,
 * starts the read, waits until the read is blocked at `waitsAt` (or has answered, were it not to read
 * there), then runs the write in the lock's transaction and commits it. Answers what the read answered;
 * the write has committed by then.
 */
export const commitBetween = <W, E2, R2>(interleaving: Interleaving<W, E2, R2>) =>
  whileHeld({
    hold: Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => Effect.orDie(sql.unsafe(`LOCK TABLE ${interleaving.table} IN ACCESS EXCLUSIVE MODE`))
    ),
    held: `the lock on ${interleaving.table}`,
    write: interleaving.write,
    waitsAt: interleaving.waitsAt,
    what: interleaving.what
  })

/**
 * Fault injection for two changes of the same rows at the same moment, `first` winning: it runs in a
 * transaction the test holds open; the loser starts, is seen blocked at `waitsAt` on the rows `first`
 * locked (or has answered, were it not to wait there), and then `first` commits. Answers what the
 * loser answered; `first` has committed by then.
 */
export const commitFirst = <W, E2, R2>(race: Race<W, E2, R2>) =>
  whileHeld({ hold: race.first, held: "the first change's transaction", write: Effect.void, waitsAt: race.waitsAt, what: race.what })
