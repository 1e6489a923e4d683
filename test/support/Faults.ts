import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface FailingInserts {
  /** A name of its own for the trigger and its function (lowercase letters, digits and _). */
  readonly name: string
  readonly table: string
  /** The rows that fail, as a trigger's WHEN condition on NEW. */
  readonly when: string
  /** The SQLSTATE raised: P0001 (raise_exception) unless said, 40001 for a serialization failure (transient). */
  readonly sqlState?: string
}

/**
 * Runs `effect` while every INSERT into `table` that matches `when` fails, as the database would refuse
 * it; the trigger is gone afterwards, however `effect` ends. Narrow `when` to the test's own rows: other
 * tests may share the database.
 */
export const withFailingInserts = (fault: FailingInserts) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const inject = Effect.all([
      sql.unsafe(`CREATE FUNCTION ${fault.name}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'injected: this row cannot be written' USING ERRCODE = '${fault.sqlState ?? "P0001"}'; END $$`),
      sql.unsafe(`CREATE TRIGGER ${fault.name} BEFORE INSERT ON ${fault.table} FOR EACH ROW
        WHEN (${fault.when}) EXECUTE FUNCTION ${fault.name}()`)
    ], { discard: true })
    const lift = sql.unsafe(`DROP FUNCTION IF EXISTS ${fault.name}() CASCADE`).pipe(Effect.orDie)
    return Effect.zipRight(Effect.orDie(inject), effect).pipe(Effect.ensuring(lift))
  })

const terminate = (sql: SqlClient.SqlClient, which: string) =>
  sql<{ n: number }>`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
                     WHERE datname = current_database() AND ${sql.literal(which)}`.pipe(
    Effect.map(([row]) => row?.n ?? 0)
  )

/** Terminates every backend of the client's database but the statement's own, as a database restart would: how many. */
export const terminateBackends = (sql: SqlClient.SqlClient) => terminate(sql, "pid <> pg_backend_pid()")

/** Terminates the backends of the database that are listening (LISTEN), as a lost notification connection: how many. */
export const terminateListeners = (sql: SqlClient.SqlClient) => terminate(sql, "query LIKE 'LISTEN %'")
