import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import type { Rut } from "../../../schema/upstream/Rut.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { rcvDocuments, rcvResumen } from "../../../services/upstream/RcvGenerator.ts"
import { overlappingSessions } from "../../../services/upstream/SessionLog.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { countRows, execute, rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { SUITE_DAY } from "../../support/SuiteClock.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const MAX_ATTEMPTS = 3
const Live = simulatedServices({ BREIN_SYNC_MAX_ATTEMPTS: String(MAX_ATTEMPTS) }).pipe(Layer.provideMerge(TestDatabase))

const PERIODO = "2026-10"
const decodeSync = Schema.decodeUnknown(SyncOutput)

/** Syncs one scope of a new connection with the given clave and answers what the caller and the database see. */
const syncWith = (rutText: Rut, clave: string) =>
  Effect.gen(function* () {
    const { principal } = yield* issuePrincipal("paid")
    const connection = yield* siiConnection(principal, rutText, clave)
    const response = yield* execute(
      principal,
      "sii.conexion.sincronizar",
      { periodo: PERIODO, perspectiva: "compras", esperar: 20 },
      connection.id
    )
    const output = yield* decodeSync(response.data)
    const stored = yield* (yield* Connections).get(principal, connection.id)
    const sessions = (yield* (yield* SiiSimulator).sessions).filter((e) => e.rut === rutText)
    return {
      output,
      job: output.trabajos[0],
      stored,
      sessions,
      documents: yield* countRows("rcv_documents", connection.id),
      coverage: yield* countRows("sync_coverage", connection.id),
      history: yield* countRows("cache_history", connection.id)
    }
  })

const expectedDocuments = (rutText: Rut) => rcvDocuments(rutText, PERIODO, "compras", SUITE_DAY)

layer(Live, { excludeTestServices: true })("sync failure modes (SII simulator)", (it) => {
  it.effect("invalida: one attempt, job and connection in error credenciales_invalidas, nothing cached", () =>
    Effect.gen(function* () {
      const result = yield* syncWith(rut(76100001), "invalida")
      assert.strictEqual(result.output.estado, "error")
      assert.deepStrictEqual(
        { state: result.job?.state, attempts: result.job?.attempts, reason: result.job?.error?.reason },
        { state: "error", attempts: 1, reason: "credenciales_invalidas" }
      )
      assert.deepStrictEqual(result.output.conexion, { id: result.stored.id, estado: "error", motivo: "credenciales_invalidas" })
      assert.deepStrictEqual({ state: result.stored.state, reason: result.stored.reason, coverage: result.stored.coverage }, {
        state: "error",
        reason: "credenciales_invalidas",
        coverage: []
      })
      assert.deepStrictEqual(result.sessions.map((e) => [e.kind, e.reason]), [["rejected", "credenciales_invalidas"]])
      assert.deepStrictEqual([result.documents, result.coverage, result.history], [0, 0, 0])
    }))

  const retryable = [["no_disponible", "upstream_no_disponible"], ["en_uso", "sesion_en_uso"], ["limite", "limite_de_tasa"]] as const
  for (const [i, [clave, reason]] of retryable.entries()) {
    it.effect(`${clave}: retried up to BREIN_SYNC_MAX_ATTEMPTS, then error ${reason}; nothing cached`, () =>
      Effect.gen(function* () {
        const result = yield* syncWith(rut(76100010 + i), clave)
        assert.deepStrictEqual(
          { state: result.job?.state, attempts: result.job?.attempts, reason: result.job?.error?.reason },
          { state: "error", attempts: MAX_ATTEMPTS, reason }
        )
        assert.deepStrictEqual({ state: result.stored.state, reason: result.stored.reason }, { state: "error", reason })
        assert.deepStrictEqual(result.sessions.map((e) => e.kind), Array(MAX_ATTEMPTS).fill("rejected"), "one login per attempt")
        assert.deepStrictEqual([result.documents, result.coverage, result.history], [0, 0, 0])
        if (reason !== "sesion_en_uso") {
          assert.match(result.job?.error?.message ?? "", /retryAfterSeconds gives \(\d+ s\)$/, "the job's error says the wait asked for")
        }
      }))
  }

  it.effect("expira: logs in again and finishes sincronizada with every document, sessions never overlapping", () =>
    Effect.gen(function* () {
      const user = rut(76100030)
      const result = yield* syncWith(user, "expira")
      assert.deepStrictEqual(
        { state: result.job?.state, attempts: result.job?.attempts, error: result.job?.error },
        { state: "sincronizada", attempts: 1, error: null }
      )
      assert.deepStrictEqual({ state: result.stored.state, reason: result.stored.reason }, { state: "sincronizada", reason: null })
      assert.deepStrictEqual(result.sessions.map((e) => e.kind), ["start", "end", "start", "end"], "expired, logged in again, logged out")
      assert.deepStrictEqual(overlappingSessions(result.sessions), [])
      assert.strictEqual(result.documents, expectedDocuments(user).length)
      assert.deepStrictEqual(result.stored.coverage.map((c) => [c.scope, c.completo]), [[
        { periodo: PERIODO, perspectiva: "compras" },
        true
      ]])
    }))

  it.effect("parcial: job parcial, coverage completo false, the other types persisted and the failing one absent", () =>
    Effect.gen(function* () {
      const user = rut(76100040)
      const result = yield* syncWith(user, "parcial")
      const failing = Math.max(...rcvResumen(user, PERIODO, "compras", SUITE_DAY).tipos.filter((t) => !t.soloTotal).map((t) => t.tipoDte))
      const kept = expectedDocuments(user).filter((d) => d.tipoDte !== failing)
      assert.isAbove(kept.length, 0)
      assert.strictEqual(result.output.estado, "parcial")
      assert.deepStrictEqual({ state: result.job?.state, attempts: result.job?.attempts }, { state: "parcial", attempts: 1 })
      assert.strictEqual(result.job?.counts["documentos"], kept.length)
      assert.strictEqual(result.job?.counts["nuevos"], kept.length)
      assert.strictEqual(result.documents, kept.length)
      assert.deepStrictEqual(result.stored.coverage.map((c) => c.completo), [false])
      assert.strictEqual(result.stored.state, "sincronizada")
      const sql = yield* SqlClient.SqlClient
      const types = yield* sql<
        { tipoDte: number }
      >`SELECT DISTINCT tipo_dte FROM rcv_documents WHERE connection_id = ${result.stored.id} ORDER BY 1`
      assert.deepStrictEqual(types.map((t) => t.tipoDte), [...new Set(kept.map((d) => d.tipoDte))].sort((a, b) => a - b))
    }))

  it.effect("a write that fails after the documents were upserted rolls the whole scope back", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const user = rut(76100050)
      // The coverage row is written after the documents, in the same transaction: make only it fail.
      yield* sql`ALTER TABLE sync_coverage ADD CONSTRAINT refuse_this_scope CHECK (scope_key <> 'periodo=2026-09&perspectiva=ventas')`
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, user)
      const response = yield* execute(
        principal,
        "sii.conexion.sincronizar",
        { periodo: "2026-09", perspectiva: "ventas", esperar: 20 },
        connection.id
      )
      yield* sql`ALTER TABLE sync_coverage DROP CONSTRAINT refuse_this_scope`
      const output = yield* decodeSync(response.data)
      assert.deepStrictEqual(output.trabajos.map((j) => [j.state, j.error?.reason]), [["error", "error_interno"]])
      assert.strictEqual(output.conexion.estado, "error")
      assert.deepStrictEqual(
        [
          yield* countRows("rcv_documents", connection.id),
          yield* countRows("sync_coverage", connection.id),
          yield* countRows("cache_history", connection.id)
        ],
        [0, 0, 0]
      )
    }))
})
