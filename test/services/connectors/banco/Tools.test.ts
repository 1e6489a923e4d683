import { assert, describe, expectTypeOf, it, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import type { SealedCursor } from "../../../../services/catalog/SealedCursor.ts"
import { BancoCache } from "../../../../services/connectors/banco/BancoCache.ts"
import { BancoConnector, cuentasConsultar, movimientosConsultar } from "../../../../services/connectors/banco/Tools.ts"
import { Registry } from "../../../../services/tools/Registry.ts"
import { action, type Tool } from "../../../../services/tools/Tool.ts"
import { BancoUpstream } from "../../../../services/upstream/BancoUpstream.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { bancoServices } from "./BancoLayers.ts"

const fields = {
  family: "banco",
  label: "Probe",
  description: "A live read dressed as a cache read.",
  plan: "paid",
  hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  cost: { kind: "read" },
  level: 0,
  stages: [],
  scope: "banco.cuentas",
  input: Schema.Struct({}),
  output: Schema.Struct({ cuentas: Schema.Int })
} as const

const asksTheBank = Effect.gen(function* () {
  const bank = yield* BancoUpstream
  return { cuentas: typeof bank.login === "function" ? 1 : 0 }
})

const readsTheCache = Effect.map(BancoCache, () => ({ cuentas: 0 }))

// The twin of the rejected tool below, reading the cache instead: it compiles, so the error below is the guard's.
export const consultarFromCache = action({ ...fields, id: "banco.cuentas.consultar", handler: () => readsTheCache })

// @ts-expect-error a .consultar tool whose handler requires BancoUpstream does not compile
export const consultarLive = action({ ...fields, id: "banco.cuentas.consultar", handler: () => asksTheBank })

describe("banco tools (types)", () => {
  it("the .consultar tools need the cache, never the bank", () => {
    expectTypeOf(cuentasConsultar).toEqualTypeOf<Tool<BancoCache>>()
    expectTypeOf(movimientosConsultar).toEqualTypeOf<Tool<BancoCache | SealedCursor>>()
    expectTypeOf(consultarFromCache).toEqualTypeOf<Tool<BancoCache>>()
  })
})

layer(bancoServices(false).pipe(Layer.provideMerge(TestDatabase)))("banco connector registry", (it) => {
  it.effect("builds under the registry invariants, with one read tool and two cache reads that declare their scope", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make([BancoConnector])
      const byId = Object.fromEntries(registry.tools.map((t) => [t.descriptor.id, t]))
      assert.deepStrictEqual(Object.keys(byId).sort(), [
        "banco.conexion.sincronizar",
        "banco.cuentas.consultar",
        "banco.movimientos.consultar"
      ])
      assert.strictEqual(byId["banco.conexion.sincronizar"]?.descriptor.plane, "read")
      assert.isFalse(byId["banco.conexion.sincronizar"]?.descriptor.hints.readOnly)
      for (const id of ["banco.cuentas.consultar", "banco.movimientos.consultar"]) {
        const tool = byId[id]
        assert.strictEqual(tool?.descriptor.plane, "action")
        assert.isTrue(tool?.descriptor.hints.readOnly)
        assert.isString(tool?.descriptor.scope)
      }
      assert.isTrue(registry.tools.every((t) => t.requiresConnection && t.descriptor.plan === "paid" && t.descriptor.connector === "banco"))
    }))
})
