import { Clock, Duration, Effect, Exit, Schedule } from "effect"
import Pg from "pg"
import { sqlState } from "../services/Database.ts"

/** Whether a connection has sent a statement and waits for its answer (pg clears `readyForQuery` until it comes). */
const awaitingAnswer = (client: Pg.PoolClient): boolean => "readyForQuery" in client && client.readyForQuery === false

/**
 * Whether the database answers a new connection and a `SELECT 1` within `bound`. Any answer counts, an
 * error too (too many connections, starting up): the server is there. Silence, a refusal or a reset do not.
 */
/**
 * The probe's own connection. What it learns comes from its promises; the error event pg emits when the
 * connection is lost after it connected (the database stopped, a reset, the probe closed on a timeout) is
 * one of those answers again, and would otherwise be thrown out of the process.
 */
export const probeClient = (config: Pg.ClientConfig, bound: Duration.Duration): Pg.Client => {
  const probe = new Pg.Client({ ...config, connectionTimeoutMillis: Duration.toMillis(bound), application_name: "brein liveness" })
  probe.on("error", () => undefined)
  return probe
}

const answers = Effect.fn("PgPool.probe")((config: Pg.ClientConfig, bound: Duration.Duration) =>
  Effect.acquireUseRelease(
    Effect.sync(() => probeClient(config, bound)),
    (probe) =>
      Effect.tryPromise(async () => {
        await probe.connect()
        await probe.query("SELECT 1")
      }).pipe(
        Effect.timeout(bound),
        Effect.as(true),
        Effect.catchAll((error) => Effect.succeed(sqlState(error) !== undefined))
      ),
    (probe, exit) =>
      Exit.isSuccess(exit) && exit.value
        ? Effect.tryPromise(() => probe.end()).pipe(Effect.ignore, Effect.interruptible, Effect.timeoutOption(bound))
        : Effect.sync(() => void probe.connection.stream.destroy())
  )
)

/**
 * Watches `pool`, every quarter `bound`, for connections that wait for an answer over two looks in a row. When
 * there are some, it asks whether the database answers at all (a new connection, within `bound`). A
 * database that answers is left to finish its statements, long ones included (a lock wait, a big query).
 * One that does not (its process stopped, the path to it cut without a reset) will not answer the pool's
 * connections either: all of them are closed, the idle ones too (the next statement sent on one would
 * wait in turn), so their statements fail with a lost connection (503, or a retry) rather than wait
 * without end, and the next caller waits for a new connection, within the bound. Stops with the scope.
 * With a zero bound it does nothing.
 */
export const watchLiveness = Effect.fn("PgPool.watchLiveness")(function* (
  pool: Pg.Pool,
  config: Pg.ClientConfig,
  bound: Duration.Duration
) {
  if (Duration.toMillis(bound) === 0) return
  const clients = new Set<Pg.PoolClient>()
  pool.on("connect", (client) => clients.add(client))
  pool.on("remove", (client) => clients.delete(client))
  let waited = new Set<Pg.PoolClient>()

  const look = Effect.gen(function* () {
    const waiting = new Set([...clients].filter(awaitingAnswer))
    const long = [...waiting].some((client) => waited.has(client))
    waited = waiting
    if (!long || (yield* answers(config, bound))) return
    const closed = [...clients]
    const unanswered = closed.filter(awaitingAnswer).length
    for (const client of closed) client.connection.stream.destroy()
    waited = new Set()
    yield* Effect.logWarning("the database answers no new connection: closed the pool's connections").pipe(
      Effect.annotateLogs({ closed: closed.length, waiting: unanswered, bound: Duration.format(bound) })
    )
  })

  // Real time, whatever clock the services read: the waits it measures are pg's sockets and timers, and a
  // test clock moved years ahead would otherwise run every look in between at once.
  yield* Effect.forkScoped(Effect.repeat(look, Schedule.spaced(Duration.times(bound, 0.25))).pipe(Effect.withClock(Clock.make())))
})
