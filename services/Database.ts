import { SqlClient, SqlError } from "@effect/sql"
import { Cause, Effect, Option, type Schedule } from "effect"

// 57014 (query_canceled): brein sets no statement_timeout and cancels a statement only when the fiber
// that ran it is interrupted (@effect/sql-pg sends pg_cancel_backend from another pooled connection). Its
// pool closes that connection rather than reuse it (layers/PgPool.ts), so such a cancel does not reach
// another statement of brein's; one sent from outside (an operator, a proxy) can: a statement that meets
// one was not at fault, and is answered (503) or retried as any other transient failure.
const TRANSIENT_CODES = new Set(["57P01", "57P02", "57P03", "57014", "40001", "40P01", "53300"])
const TRANSIENT_MESSAGES =
  /Connection terminated|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Connection error/i

const causes = (error: unknown): ReadonlyArray<unknown> => {
  const chain: Array<unknown> = []
  let current: unknown = error
  while (current !== undefined && current !== null && chain.length < 5) {
    chain.push(current)
    current = typeof current === "object" && "cause" in current ? current.cause : undefined
  }
  return chain
}

/** The SQLSTATE behind a failure, if the server sent one. */
export const sqlState = (error: unknown): string | undefined => {
  for (const c of causes(error)) {
    if (typeof c === "object" && c !== null && "code" in c && typeof c.code === "string" && /^[0-9A-Z]{5}$/.test(c.code)) return c.code
  }
  return undefined
}

/**
 * A failure that goes away by itself: the connection was lost or refused, the server is shutting down
 * or starting (57P01-3, class 08), too many connections (53300), a serialization failure or deadlock (40001, 40P01),
 * a statement canceled by a cancel request (57014). Not a protocol violation (08P01): the server refused what
 * brein sent (a statement of more than 65,535 parameters), and would refuse it again.
 */
export const isTransient = (error: unknown): boolean => {
  const code = sqlState(error)
  if (code !== undefined) return TRANSIENT_CODES.has(code) || (code.startsWith("08") && code !== "08P01")
  return causes(error).some((c) => {
    if (typeof c === "object" && c !== null && "code" in c && typeof c.code === "string" && /^E[A-Z]+$/.test(c.code)) return true
    return c instanceof Error && TRANSIENT_MESSAGES.test(c.message)
  })
}

/** The transient database failure inside a defect, if that is what it is. */
export const transientIn = (cause: Cause.Cause<unknown>): Option.Option<unknown> =>
  Option.orElse(
    Cause.dieOption(cause).pipe(Option.filter(isTransient)),
    () => Cause.failureOption(cause).pipe(Option.filter(isTransient))
  )

/** A transient database failure carried as a defect, made retryable for the time of `retrying`. */
class Transient {
  readonly _tag = "Transient"
  constructor(readonly defect: unknown) {}
}

/**
 * Runs `effect` again on `schedule` while it dies of a transient database failure (its repository
 * edges `orDie`); dies with the last one if the schedule gives up first.
 */
export const retryTransient = <A, R, Out, RS>(effect: Effect.Effect<A, never, R>, schedule: Schedule.Schedule<Out, unknown, RS>) =>
  effect.pipe(
    Effect.catchAllDefect((defect) => (isTransient(defect) ? Effect.fail(new Transient(defect)) : Effect.die(defect))),
    Effect.retry(schedule),
    Effect.catchAll((e) => Effect.die(e.defect))
  )

/**
 * Runs `effect` in one REPEATABLE READ, READ ONLY transaction, so that its statements all read the
 * database as it was at the first of them (an edit committing between two of them is not half seen).
 * Inside a caller's transaction it runs there as it is: that transaction already chose its view.
 */
export const readSnapshot = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
    Option.isSome(outer)
      ? effect
      : sql.withTransaction(Effect.zipRight(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`.pipe(Effect.orDie), effect))
        .pipe(Effect.catchAll((error) => error instanceof SqlError.SqlError ? Effect.die(error) : Effect.fail(error))))
    .pipe(Effect.withSpan("Database.readSnapshot"))
