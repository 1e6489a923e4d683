import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { RcvQueryOutput } from "../../../schema/connectors/Sii.ts"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { execute, rut, siiConnection, simulatedServices } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const Live = simulatedServices().pipe(Layer.provideMerge(TestDatabase))
const decodeSync = Schema.decodeUnknown(SyncOutput)
const decodeQuery = Schema.decodeUnknown(RcvQueryOutput)

layer(Live, { excludeTestServices: true })("clave cambia: SII corrects documents between two syncs", (it) => {
  it.effect("the second sync sees changed amounts and estados: version 2, with the earlier values in the history; a third changes nothing", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, rut(76620001), "cambia")
      const periodo = yield* monthsAgo(1)
      const sync = execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "compras", esperar: 20 }, connection.id).pipe(
        Effect.flatMap((r) => decodeSync(r.data)),
        Effect.map((output) => output.trabajos[0]?.counts ?? {})
      )
      const first = yield* sync
      assert.isAbove(first["nuevos"] ?? 0, 0)
      assert.strictEqual(first["cambiados"], 0)
      const second = yield* sync
      assert.isAbove(second["cambiados"] ?? 0, 0, "the second login sees corrected documents")
      assert.strictEqual(second["nuevos"], 0)

      const query = { periodo, perspectiva: "compras", incluirHistorial: true, limit: 500 }
      const { documentos } = yield* decodeQuery((yield* execute(principal, "sii.rcv.consultar", query, connection.id)).data)
      const changed = documentos.filter((d) => d.version === 2)
      assert.strictEqual(changed.length, second["cambiados"])
      for (const doc of changed) {
        const [earlier] = doc.historial ?? []
        assert.strictEqual(doc.historial?.length, 1)
        assert.strictEqual(earlier?.version, 1)
        assert.strictEqual(doc.estado, "reclamado")
        assert.isAbove(doc.montoTotal, Number(earlier?.valores["monto_total"] ?? earlier?.valores["montoTotal"]))
      }
      assert.isTrue(documentos.filter((d) => d.version === 1).every((d) => d.historial?.length === 0))

      const third = yield* sync
      assert.deepStrictEqual([third["cambiados"], third["nuevos"]], [0, 0], "the correction happened once")
    }))
})
