import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { allFinished, bancoConnection, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const Live = simulatedServices({ BREIN_SYNC_MAX_ATTEMPTS: "2" }).pipe(Layer.provideMerge(TestDatabase))

/**
 * Checked by PostgreSQL when each transaction commits: a job that ends leaves no connection saying
 * `sincronizando` unless another job of it is still open. A job that ended in one transaction and
 * its connection in a later one fails this check, whatever the timing.
 */
const invariant = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
    CREATE OR REPLACE FUNCTION job_ended_with_its_connection() RETURNS trigger AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM connections c WHERE c.id = NEW.connection_id AND c.state = 'sincronizando'
                 AND NOT EXISTS (SELECT 1 FROM sync_jobs j WHERE j.connection_id = c.id AND j.state IN ('en_cola', 'sincronizando'))) THEN
        RAISE EXCEPTION 'job % ended while its connection still says sincronizando', NEW.id;
      END IF;
      RETURN NULL;
    END $$ LANGUAGE plpgsql;
    DROP TRIGGER IF EXISTS job_ended_with_its_connection ON sync_jobs;
    CREATE CONSTRAINT TRIGGER job_ended_with_its_connection AFTER UPDATE ON sync_jobs DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (NEW.state IN ('sincronizada', 'parcial', 'error')) EXECUTE FUNCTION job_ended_with_its_connection();
  `)
})

const connectionState = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ state: string; stateReason: string | null }>`SELECT state, state_reason FROM connections WHERE id = ${id}`
  )

layer(Live, { excludeTestServices: true })("a job's end and its connection's state commit together", (it) => {
  it.effect("on success, partial success, terminal and exhausted failures (sii and banco)", () =>
    Effect.gen(function* () {
      yield* invariant
      const { principal } = yield* issuePrincipal("paid")
      const periodo = yield* monthsAgo(1)
      const cases = [
        ["sii", "clave-normal", "sincronizada", null],
        ["sii", "parcial", "sincronizada", "sincronizacion_parcial"],
        ["sii", "invalida", "error", "credenciales_invalidas"],
        ["sii", "no_disponible", "error", "upstream_no_disponible"],
        ["banco", "clave-normal", "sincronizada", null],
        ["banco", "mfa", "error", "mfa_requerido"]
      ] as const
      for (const [i, [connector, clave, state, reason]] of cases.entries()) {
        const connection = connector === "sii"
          ? yield* siiConnection(principal, rut(76640001 + i), clave)
          : yield* bancoConnection(principal, rut(77640001 + i), clave)
        yield* execute(principal, `${connector}.conexion.sincronizar`, { periodo, esperar: 0 }, connection.id)
        const jobs = yield* waitForJobs(connection.id, allFinished)
        assert.isTrue(jobs.every((j) => j.errorReason !== "error_interno"), `${connector}/${clave}: no commit was refused by the check`)
        assert.deepStrictEqual(yield* connectionState(connection.id), [{ state, stateReason: reason }], `${connector}/${clave}`)
      }
    }), { timeout: 30_000 })
})
