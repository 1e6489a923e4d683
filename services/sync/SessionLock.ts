import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/**
 * One upstream session per institution user across every process: a PostgreSQL advisory lock held
 * on a reserved connection for as long as the session lives (BCI permits one live session per user;
 * SII limits concurrent sessions per RUT). If the process dies, PostgreSQL releases the lock.
 */
export class SessionLock extends Effect.Service<SessionLock>()("brein/sync/SessionLock", {
  effect: Effect.map(SqlClient.SqlClient, (sql) => ({
    /** Some(void) while held in the caller's scope; None if another session holds it now. */
    tryAcquire: Effect.fn("SessionLock.tryAcquire")(function* (key: string) {
      const connection = yield* sql.reserve
      const [row] = yield* connection.executeValues("SELECT pg_try_advisory_lock(hashtextextended($1, 7))", [key])
      if (row?.[0] !== true) return Option.none()
      yield* Effect.addFinalizer(() =>
        connection.executeValues("SELECT pg_advisory_unlock(hashtextextended($1, 7))", [key]).pipe(Effect.ignore)
      )
      return Option.some(undefined)
    }, Effect.orDie)
  }))
}) {}
