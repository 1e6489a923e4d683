import { Duration, Effect, Redacted } from "effect"
import Pg from "pg"
import { EmbeddedPostgresFailed, stopPostmaster } from "./PostgresProcess.ts"

/**
 * The advisory lock every brein process using an embedded PostgreSQL holds, shared, while it runs: the
 * cluster is stopped by the last of them to leave, whichever started it, not by the first.
 */
const LEASE = "1651664233, 11"

/** The lease's own connection, named so that an operator sees it in pg_stat_activity. */
const APPLICATION_NAME = "brein lease"

const CLOSE_WAIT = Duration.seconds(2)

const query = (client: Pg.Client, text: string) => Effect.tryPromise(() => client.query<{ readonly taken: boolean }>(text))

/**
 * Ends the connection. One the cluster already ended (it stopped) may never report its end to `pg`, whose
 * `end()` then waits for ever: the wait is bounded.
 */
const close = (client: Pg.Client) =>
  // interruptible: it runs in a finalizer, where the bound could not otherwise end the wait
  Effect.interruptible(Effect.promise(() => client.end().catch(() => undefined))).pipe(Effect.timeout(CLOSE_WAIT), Effect.ignore)

/**
 * Whether this process is the last to hold the lease: it gives its share back and takes the lock whole,
 * which succeeds only when no other process holds a share. A process arriving meanwhile waits for its
 * share behind the whole lock, loses its connection as the cluster stops, and starts the cluster again.
 */
const isLast = (client: Pg.Client) =>
  query(client, `SELECT pg_advisory_unlock_shared(${LEASE}), pg_try_advisory_lock(${LEASE}) AS taken`).pipe(
    Effect.map((result) => result.rows[0]?.taken === true),
    Effect.orElseSucceed(() => false)
  )

/**
 * Holds a share of the cluster's lease until the scope closes; then, if no other brein process holds one,
 * stops the cluster (a fast shutdown). Fails when the cluster cannot be reached (it may be stopping).
 */
export const holdLease = Effect.fn("EmbeddedPostgres.lease")(function* (url: Redacted.Redacted<string>, directory: string) {
  yield* Effect.acquireRelease(
    Effect.suspend(() => {
      const client = new Pg.Client({ connectionString: Redacted.value(url), application_name: APPLICATION_NAME })
      // the connection ends when the cluster stops (this process stopping it, or another); nothing else is done on it
      client.on("error", () => undefined)
      return Effect.tryPromise(() => client.connect()).pipe(
        Effect.zipRight(query(client, `SELECT pg_advisory_lock_shared(${LEASE})`)),
        Effect.as(client),
        Effect.tapError(() => close(client)),
        Effect.mapError((cause) =>
          new EmbeddedPostgresFailed({
            message: `cannot reach the embedded PostgreSQL in ${directory}: ${
              cause.error instanceof Error ? cause.error.message : String(cause.error)
            }`,
            cause
          })
        )
      )
    }),
    (client) =>
      Effect.gen(function* () {
        if (yield* isLast(client)) {
          yield* Effect.log("stopping embedded PostgreSQL: no other brein process uses it").pipe(Effect.annotateLogs({ directory }))
          yield* stopPostmaster(directory)
        }
        yield* close(client)
      })
  )
})
