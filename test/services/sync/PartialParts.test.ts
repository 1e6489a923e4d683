import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { accountOn, accountPlans } from "../../../services/upstream/CartolaGenerator.ts"
import { todayInChile } from "../../../services/upstream/CivilDate.ts"
import { rcvResumen } from "../../../services/upstream/RcvGenerator.ts"
import { bancoConnection, execute, rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const Live = simulatedServices().pipe(Layer.provideMerge(TestDatabase))
const decodeSync = Schema.decodeUnknown(SyncOutput)

layer(Live, { excludeTestServices: true })("a parcial job says which part failed and why", (it) => {
  it.effect("sii: the document type that could not be read, with the upstream's answer", () =>
    Effect.gen(function* () {
      const user = rut(76630001)
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, user, "parcial")
      const periodo = yield* monthsAgo(1)
      const output = yield* decodeSync(
        (yield* execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "compras", esperar: 20 }, connection.id)).data
      )
      const tipos = rcvResumen(user, periodo, "compras", yield* todayInChile).tipos.filter((t) => !t.soloTotal)
      const failing = Math.max(...tipos.map((t) => t.tipoDte))
      const [job] = output.trabajos
      assert.strictEqual(job?.state, "parcial")
      assert.strictEqual(job?.error?.reason, "sincronizacion_parcial")
      assert.include(job?.error?.message ?? "", `1 of ${tipos.length} document types could not be read: tipoDte ${failing}`)
      assert.deepStrictEqual(job?.error?.parts?.map((p) => [p.recurso, p.tipoDte]), [[`tipoDte:${failing}`, failing]])
      assert.include(job?.error?.parts?.[0]?.reason ?? "", "Error al obtener el detalle")
      assert.notProperty(job?.counts ?? {}, `tipoDte_${failing}`, "no count for a type that was not read")
    }))

  it.effect("banco: the account that could not be read, with the upstream's answer", () =>
    Effect.gen(function* () {
      const user = rut(77630001)
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* bancoConnection(principal, user, "parcial")
      const output = yield* decodeSync(
        (yield* execute(principal, "banco.conexion.sincronizar", { periodo: yield* monthsAgo(1), esperar: 20 }, connection.id)).data
      )
      const today = yield* todayInChile
      const last = accountPlans("bci", user).filter((plan) => accountOn(plan, today) !== undefined).at(-1)
      const [job] = output.trabajos
      assert.strictEqual(job?.state, "parcial")
      assert.deepStrictEqual(job?.error?.parts?.map((p) => p.recurso), [last?.id ?? "no account"])
      assert.include(job?.error?.parts?.[0]?.cuenta ?? "", "···")
      assert.include(job?.error?.parts?.[0]?.reason ?? "", "timed out")
      assert.include(job?.error?.message ?? "", "could not be read")
    }))
})
