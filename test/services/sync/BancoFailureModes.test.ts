import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import type { Rut } from "../../../schema/upstream/Rut.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { BancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { accountOn, accountPlans, movements } from "../../../services/upstream/CartolaGenerator.ts"
import { parseIsoDay } from "../../../services/upstream/CivilDate.ts"
import { overlappingSessions } from "../../../services/upstream/SessionLog.ts"
import { bancoConnection, countRows, execute, rut, simulatedServices } from "../../support/Connected.ts"
import { SUITE_DAY } from "../../support/SuiteClock.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const MAX_ATTEMPTS = 3
const Live = simulatedServices({ BREIN_SYNC_MAX_ATTEMPTS: String(MAX_ATTEMPTS) }).pipe(Layer.provideMerge(TestDatabase))

const PERIODO = "2026-10"
const decodeSync = Schema.decodeUnknown(SyncOutput)

const syncWith = (user: Rut, clave: string) =>
  Effect.gen(function* () {
    const { principal } = yield* issuePrincipal("paid")
    const connection = yield* bancoConnection(principal, user, clave, "bci")
    const response = yield* execute(principal, "banco.conexion.sincronizar", { periodo: PERIODO, esperar: 20 }, connection.id)
    const output = yield* decodeSync(response.data)
    const stored = yield* (yield* Connections).get(principal, connection.id)
    const sessions = (yield* (yield* BancoSimulator).sessions).filter((e) => e.rut === user)
    return {
      output,
      job: output.trabajos[0],
      stored,
      sessions,
      accounts: yield* countRows("bank_accounts", connection.id),
      movements: yield* countRows("bank_movements", connection.id),
      coverage: yield* countRows("sync_coverage", connection.id),
      history: yield* countRows("cache_history", connection.id)
    }
  })

/** What the bank lists today for the user: its open accounts and each one's movements of the month. */
const cartola = (user: Rut) =>
  accountPlans("bci", user)
    .filter((plan) => accountOn(plan, SUITE_DAY) !== undefined)
    .map((plan) => ({
      id: plan.id,
      movements: movements(plan, parseIsoDay(`${PERIODO}-01`), parseIsoDay(`${PERIODO}-31`), SUITE_DAY).length
    }))

layer(Live, { excludeTestServices: true })("sync failure modes (bank simulator, BCI)", (it) => {
  const terminal = [["invalida", "credenciales_invalidas"], ["mfa", "mfa_requerido"], ["mfa_timeout", "mfa_timeout"]] as const
  for (const [i, [clave, reason]] of terminal.entries()) {
    it.effect(`${clave}: one attempt, job and connection in error ${reason}, nothing cached`, () =>
      Effect.gen(function* () {
        const result = yield* syncWith(rut(77200001 + i), clave)
        assert.deepStrictEqual(
          { state: result.job?.state, attempts: result.job?.attempts, reason: result.job?.error?.reason },
          { state: "error", attempts: 1, reason }
        )
        assert.deepStrictEqual({ state: result.stored.state, reason: result.stored.reason, coverage: result.stored.coverage }, {
          state: "error",
          reason,
          coverage: []
        })
        assert.deepStrictEqual(result.sessions.map((e) => [e.kind, e.reason]), [["rejected", reason]])
        assert.deepStrictEqual([result.accounts, result.movements, result.coverage, result.history], [0, 0, 0, 0])
      }))
  }

  const retryable = [["en_uso", "sesion_en_uso"], ["no_disponible", "upstream_no_disponible"], ["limite", "limite_de_tasa"]] as const
  for (const [i, [clave, reason]] of retryable.entries()) {
    it.effect(`${clave}: retried up to BREIN_SYNC_MAX_ATTEMPTS, then error ${reason}, nothing cached`, () =>
      Effect.gen(function* () {
        const result = yield* syncWith(rut(77200011 + i), clave)
        assert.deepStrictEqual(
          { state: result.job?.state, attempts: result.job?.attempts, reason: result.job?.error?.reason },
          { state: "error", attempts: MAX_ATTEMPTS, reason }
        )
        assert.deepStrictEqual({ state: result.stored.state, reason: result.stored.reason }, { state: "error", reason })
        assert.deepStrictEqual(result.sessions.map((e) => e.kind), Array(MAX_ATTEMPTS).fill("rejected"))
        assert.deepStrictEqual([result.accounts, result.movements, result.coverage, result.history], [0, 0, 0, 0])
      }))
  }

  it.effect("expira: logs in once more (one session at a time) and finishes sincronizada with every movement", () =>
    Effect.gen(function* () {
      const user = rut(77100002)
      const result = yield* syncWith(user, "expira")
      assert.deepStrictEqual({ state: result.job?.state, attempts: result.job?.attempts, error: result.job?.error }, {
        state: "sincronizada",
        attempts: 1,
        error: null
      })
      assert.deepStrictEqual({ state: result.stored.state, reason: result.stored.reason }, { state: "sincronizada", reason: null })
      assert.deepStrictEqual(result.sessions.map((e) => e.kind), ["start", "end", "start", "end"])
      assert.deepStrictEqual(overlappingSessions(result.sessions), [])
      const expected = cartola(user)
      assert.deepStrictEqual([result.accounts, result.movements], [expected.length, expected.reduce((n, a) => n + a.movements, 0)])
      assert.deepStrictEqual(result.stored.coverage.map((c) => [c.scope, c.completo]), [[{ periodo: PERIODO }, true]])
    }))

  it.effect("parcial: job parcial, coverage completo false, every account and the other accounts' movements persisted", () =>
    Effect.gen(function* () {
      const user = rut(77100003)
      const expected = cartola(user)
      assert.isAtLeast(expected.length, 2, "a user with several accounts")
      const failing = expected[expected.length - 1]
      const result = yield* syncWith(user, "parcial")
      assert.strictEqual(result.output.estado, "parcial")
      assert.deepStrictEqual({ state: result.job?.state, attempts: result.job?.attempts }, { state: "parcial", attempts: 1 })
      assert.strictEqual(result.job?.counts["cuentasSinLeer"], 1)
      assert.strictEqual(result.accounts, expected.length)
      assert.strictEqual(result.movements, expected.slice(0, -1).reduce((n, a) => n + a.movements, 0))
      const sql = yield* SqlClient.SqlClient
      const [missing] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM bank_movements WHERE connection_id = ${result.stored.id} AND account_id = ${failing?.id ?? ""}`
      assert.strictEqual(missing?.n, 0, "nothing of the account that could not be read")
      assert.deepStrictEqual(result.stored.coverage.map((c) => c.completo), [false])
    }))

  it.effect("mfa_aprobada: the push approval is waited for, and the sync completes", () =>
    Effect.gen(function* () {
      const result = yield* syncWith(rut(77100004), "mfa_aprobada")
      assert.deepStrictEqual({ state: result.job?.state, attempts: result.job?.attempts }, { state: "sincronizada", attempts: 1 })
      assert.isAbove(result.movements, 0)
    }))
})
