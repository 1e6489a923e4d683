import { SqlError } from "@effect/sql"
import { Duration, Effect, Redacted, String } from "effect"
import Pg from "pg"
import { watchLiveness } from "./PgLiveness.ts"

export interface PoolOptions {
  readonly url: Redacted.Redacted<string>
  readonly maxConnections: number
  /**
   * How long a caller waits for a connection, queued behind others or while a new one connects, before it
   * fails with a transient error (answered 503, or retried): so a database that stops answering, or a pool
   * held by statements that do not end, makes calls fail rather than wait without end. Zero: no bound.
   */
  readonly connectTimeout?: Duration.Duration
}

/** The default bound on waiting for a connection (`BREIN_DB_CONNECT_TIMEOUT_SECONDS`). */
export const CONNECT_TIMEOUT = Duration.seconds(10)

/** The statement @effect/sql-pg sends, on another pooled connection, to cancel the statement of an interrupted fiber. */
const CANCEL_REQUEST = /^SELECT pg_cancel_backend\((\d+)\)$/

const backendOf = (client: Pg.PoolClient): number | undefined =>
  "processID" in client && typeof client.processID === "number" ? client.processID : undefined

/** Why a connection left the pool: a cancel request was sent for its backend. */
class CanceledConnection extends Error {
  constructor() {
    super("a cancel request was sent for this connection's statement: the connection is closed, not reused")
  }
}

type Release = (error?: Error | boolean) => void

/**
 * A pool that closes, rather than hands out again, a connection for whose backend a cancel request was
 * sent. @effect/sql-pg cancels the statement of an interrupted fiber (a client that hung up, a stop)
 * with `pg_cancel_backend` on another pooled connection, and gives the connection back once that
 * request is answered, or as soon as the statement ends. A request that waited for a connection, or a
 * signal the backend took late, then cancels whatever that connection runs by then: another caller's
 * statement. A connection closed instead takes any late cancel with it; the next caller gets a new one.
 */
class CancelSafePool extends Pg.Pool {
  /** Backends a cancel request was sent for while their connection was handed out. */
  readonly #canceled = new Set<number>()

  constructor(config: Pg.PoolConfig) {
    super(config)
    const query = Pg.Pool.prototype.query
    // Every form of pool.query (overloaded in its types) goes through; a cancel request is noted first.
    Object.defineProperty(this, "query", {
      value: (...args: Array<unknown>): unknown => {
        const request = typeof args[0] === "string" ? CANCEL_REQUEST.exec(args[0]) : null
        if (request !== null) this.#canceled.add(Number(request[1]))
        return Reflect.apply(query, this, args)
      }
    })
    this.on("remove", (client) => {
      const backend = backendOf(client)
      if (backend !== undefined) this.#canceled.delete(backend)
    })
  }

  /** Wraps the client's release (as `client.release` and as answered): it closes the connection if a cancel request was sent for its backend. */
  #guarded(client: Pg.PoolClient): Release {
    const release: Release = client.release
    const guarded: Release = (error) => {
      const backend = backendOf(client)
      const canceled = backend !== undefined && this.#canceled.delete(backend)
      release(error ?? (canceled ? new CanceledConnection() : undefined))
    }
    client.release = guarded
    return guarded
  }

  override connect(): Promise<Pg.PoolClient>
  override connect(
    callback: (error: Error | undefined, client: Pg.PoolClient | undefined, done: Release) => void
  ): void
  override connect(
    callback?: (error: Error | undefined, client: Pg.PoolClient | undefined, done: Release) => void
  ): Promise<Pg.PoolClient> | void {
    if (callback === undefined) {
      return super.connect().then((client) => {
        this.#guarded(client)
        return client
      })
    }
    super.connect((error, client, done) => callback(error, client, client === undefined ? done : this.#guarded(client)))
  }
}

/**
 * The pool brein's PgClient runs on, checked with one statement, closed with its scope. Statements the
 * database stops answering fail within about 1.5 times the connect bound (./PgLiveness.ts).
 */
export const pgPool = Effect.fn("PgPool.open")(function* (options: PoolOptions) {
  const bound = options.connectTimeout ?? CONNECT_TIMEOUT
  const config = { connectionString: Redacted.value(options.url), application_name: "brein" }
  const pool = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new CancelSafePool({ ...config, max: options.maxConnections, connectionTimeoutMillis: Duration.toMillis(bound) })
      // A connection that fails while idle leaves the pool by itself; its error is not the process's.
      pool.on("error", () => undefined)
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(Duration.seconds(1)))
  )
  yield* watchLiveness(pool, config, bound)
  yield* Effect.tryPromise({
    try: () => pool.query("SELECT 1"),
    catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
  }).pipe(Effect.timeoutFail({
    duration: Duration.seconds(5),
    onTimeout: () => new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
  }))
  return pool
})

/** brein's names in SQL are snake_case, in code camelCase. */
export const naming = { transformQueryNames: String.camelToSnake, transformResultNames: String.snakeToCamel } as const
