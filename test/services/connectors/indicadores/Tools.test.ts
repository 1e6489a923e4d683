import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { servicesWith } from "../../../../layers/App.ts"
import { SerieObtenerOutput } from "../../../../schema/connectors/Indicadores.ts"
import { UpstreamUnavailable } from "../../../../schema/upstream/Errors.ts"
import { IndicadoresConnector } from "../../../../services/connectors/indicadores/Tools.ts"
import { Executor } from "../../../../services/pipeline/Executor.ts"
import { IndicadoresSimulator, IndicadoresSource, makeIndicadoresSimulator } from "../../../../services/upstream/IndicadoresSource.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { callContext, issuePrincipal } from "../../../support/TestLayers.ts"
import { setClock } from "../../upstream/helpers.ts"

const over = (source: Layer.Layer<IndicadoresSource>) =>
  servicesWith([IndicadoresConnector]).pipe(Layer.provide(source), Layer.provideMerge(TestDatabase))

const AS_OF = "2026-10-02T15:00:00Z"
const simulator = makeIndicadoresSimulator({ timeScale: 0 })

const decodeSerie = Schema.decodeUnknown(SerieObtenerOutput)

const call = (toolId: string, input: unknown) =>
  Effect.gen(function* () {
    yield* setClock(AS_OF)
    const { principal } = yield* issuePrincipal("free")
    return yield* (yield* Executor).call(toolId, input, callContext(principal, { surface: "http" }))
  })

const issuePaths = (toolId: string, input: unknown) =>
  Effect.map(Effect.flip(call(toolId, input)), (error) => (error._tag === "InvalidInput" ? error.issues.map((i) => i.path) : [error._tag]))

const rowCounts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<{ tableName: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`
  return Object.fromEntries(
    yield* Effect.forEach(
      tables,
      ({ tableName }) =>
        Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(tableName)}`, (rows) => [tableName, rows[0]?.n ?? -1] as const)
    )
  )
})

layer(over(IndicadoresSimulator.layerWith({ timeScale: 0 })))("indicadores tools over the simulator", (it) => {
  it.effect("valor: UF on 2026-10-02 is the observed anchor, today by default", () =>
    Effect.gen(function* () {
      const dated = yield* call("indicadores.valor.obtener", { codigo: "uf", fecha: "2026-10-02" })
      assert.deepStrictEqual(dated.data, {
        codigo: "uf",
        nombre: "Unidad de fomento (UF)",
        unidadMedida: "Pesos",
        fecha: "2026-10-02",
        valor: 41_073.57
      })
      assert.deepStrictEqual([dated.meta.plane, dated.meta.audit_status, dated.warnings], ["action", "recorded", undefined])
      const today = yield* call("indicadores.valor.obtener", { codigo: "uf" })
      assert.deepStrictEqual(today.data, dated.data)
    }))

  it.effect("valor: the value in force on days an indicator is not published, with a warning", () =>
    Effect.gen(function* () {
      const sunday = yield* call("indicadores.valor.obtener", { codigo: "dolar", fecha: "2026-09-27" })
      const friday = yield* simulator.valor("dolar", "2026-09-25")
      assert.deepStrictEqual(sunday.data, {
        codigo: "dolar",
        nombre: "Dólar observado",
        unidadMedida: "Pesos",
        fecha: "2026-09-25",
        valor: friday.valor
      })
      assert.strictEqual(sunday.warnings?.length, 1)
      assert.include(sunday.warnings?.[0], "2026-09-25")
      const utm = yield* call("indicadores.valor.obtener", { codigo: "utm" })
      assert.deepStrictEqual([utm.data, utm.warnings?.length], [
        { codigo: "utm", nombre: "Unidad Tributaria Mensual (UTM)", unidadMedida: "Pesos", fecha: "2026-10-01", valor: 72_151 },
        1
      ])
      const acuerdo = yield* call("indicadores.valor.obtener", { codigo: "dolar_intercambio", fecha: "2026-10-02" })
      assert.deepStrictEqual(acuerdo.data, {
        codigo: "dolar_intercambio",
        nombre: "Dólar acuerdo",
        unidadMedida: "Pesos",
        fecha: "2014-11-13",
        valor: 758.87
      })
    }))

  it.effect("valor: a date with no value yet is IndicadorValueNotFound", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(call("indicadores.valor.obtener", { codigo: "uf", fecha: "2026-12-01" }))
      assert.strictEqual(error._tag, "IndicadorValueNotFound")
      if (error._tag === "IndicadorValueNotFound") assert.deepStrictEqual([error.codigo, error.fecha], ["uf", "2026-12-01"])
      const before = yield* Effect.flip(call("indicadores.valor.obtener", { codigo: "dolar_intercambio", fecha: "2014-11-12" }))
      assert.strictEqual(before._tag, "IndicadorValueNotFound")
    }))

  it.effect("serie: oldest first, with n, total, promedio, minimo, maximo and a ref", () =>
    Effect.gen(function* () {
      const response = yield* call("indicadores.serie.obtener", { codigo: "uf", desde: "2026-09-01", hasta: "2026-09-30" })
      const expected = [...(yield* simulator.serie("uf", "2026-09-01", "2026-09-30")).serie].reverse()
      const data = yield* decodeSerie(response.data)
      const valores = expected.map((p) => p.valor)
      const total = valores.reduce((a, b) => a + b, 0)
      assert.strictEqual(data.serie.length, 30)
      assert.deepStrictEqual(data.serie[0], { fecha: "2026-09-01", valor: valores[0] ?? Number.NaN })
      assert.deepStrictEqual(data.serie.map((p) => p.valor), valores)
      assert.deepStrictEqual(
        [data.ref, data.nombre, data.unidadMedida, data.n, data.minimo, data.maximo],
        ["indicadores.serie:uf:2026-09-01:2026-09-30", "Unidad de fomento (UF)", "Pesos", 30, Math.min(...valores), Math.max(...valores)]
      )
      assert.closeTo(data.total, total, 1e-4)
      assert.closeTo(data.promedio ?? Number.NaN, total / 30, 1e-4)

      const weekend = yield* call("indicadores.serie.obtener", { codigo: "dolar", desde: "2026-09-26", hasta: "2026-09-27" })
      assert.deepStrictEqual(weekend.data, {
        ref: "indicadores.serie:dolar:2026-09-26:2026-09-27",
        codigo: "dolar",
        nombre: "Dólar observado",
        unidadMedida: "Pesos",
        desde: "2026-09-26",
        hasta: "2026-09-27",
        serie: [],
        n: 0,
        total: 0,
        promedio: null,
        minimo: null,
        maximo: null
      })
      assert.strictEqual(weekend.warnings?.length, 1)
    }))

  it.effect("bad input is InvalidInput naming the field", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* issuePaths("indicadores.valor.obtener", { codigo: "peso_argentino" }), ["input.codigo"])
      assert.deepStrictEqual(yield* issuePaths("indicadores.valor.obtener", { codigo: "uf", fecha: "2026-02-30" }), ["input.fecha"])
      assert.deepStrictEqual(yield* issuePaths("indicadores.serie.obtener", { codigo: "uf", desde: "2026-10-02", hasta: "2026-10-01" }), [
        "input.hasta"
      ])
      assert.deepStrictEqual(yield* issuePaths("indicadores.serie.obtener", { codigo: "uf", desde: "2025-01-01", hasta: "2026-01-02" }), [
        "input.hasta"
      ])
      const leapYear = yield* call("indicadores.serie.obtener", { codigo: "uf", desde: "2024-01-01", hasta: "2024-12-31" })
      assert.strictEqual((yield* decodeSerie(leapYear.data)).n, 366)
    }))

  it.effect("they persist nothing: only the audit log grows", () =>
    Effect.gen(function* () {
      yield* setClock(AS_OF)
      const { principal } = yield* issuePrincipal("free")
      const executor = yield* Executor
      const before = yield* rowCounts
      assert.includeMembers(Object.keys(before), ["workspaces", "api_keys", "connections", "audit_log"])
      assert.isAbove(before["workspaces"] ?? 0, 0)
      const calls = [
        ["indicadores.valor.obtener", { codigo: "uf" }],
        ["indicadores.valor.obtener", { codigo: "dolar", fecha: "2026-09-27" }],
        ["indicadores.serie.obtener", { codigo: "euro", desde: "2026-01-01", hasta: "2026-09-30" }],
        ["indicadores.valor.obtener", { codigo: "uf", fecha: "2030-01-01" }],
        ["indicadores.serie.obtener", { codigo: "uf", desde: "2026-10-02", hasta: "2026-10-01" }]
      ] as const
      for (const [toolId, input] of calls) yield* Effect.exit(executor.call(toolId, input, callContext(principal)))
      const after = yield* rowCounts
      assert.deepStrictEqual({ ...after, audit_log: 0, audit_checkpoint: 0 }, { ...before, audit_log: 0, audit_checkpoint: 0 })
      assert.strictEqual((after["audit_log"] ?? 0) - (before["audit_log"] ?? 0), calls.length)
    }))
})

const Down = Layer.succeed(
  IndicadoresSource,
  IndicadoresSource.of({
    valor: () => Effect.fail(new UpstreamUnavailable({ upstream: "indicadores", retryAfterSeconds: 30 })),
    serie: () => Effect.fail(new UpstreamUnavailable({ upstream: "indicadores", retryAfterSeconds: 30 }))
  })
)

describe("indicadores tools with the upstream down", () => {
  layer(over(Down))((it) => {
    it.effect("the caller gets UpstreamUnavailable with retryAfterSeconds, and the call is audited", () =>
      Effect.gen(function* () {
        for (
          const [toolId, input] of [
            ["indicadores.valor.obtener", { codigo: "uf" }],
            ["indicadores.serie.obtener", { codigo: "uf", desde: "2026-09-01", hasta: "2026-09-30" }]
          ] as const
        ) {
          const error = yield* Effect.flip(call(toolId, input))
          assert.strictEqual(error._tag, "UpstreamUnavailable")
          if (error._tag === "UpstreamUnavailable") assert.deepStrictEqual([error.upstream, error.retryAfterSeconds], ["indicadores", 30])
        }
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ errorTag: string }>`SELECT error_tag FROM audit_log WHERE tool_id LIKE 'indicadores.%'`
        assert.deepStrictEqual(rows.map((r) => r.errorTag), ["UpstreamUnavailable", "UpstreamUnavailable"])
      }))
  })
})
