import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Layer, TestClock, TestServices } from "effect"
import { createServer } from "node:http"
import { IndicadoresLive } from "../../../../layers/Indicadores.ts"
import { IndicadorValueNotFound } from "../../../../schema/upstream/Errors.ts"
import { IndicadoresHttp, type IndicadoresHttpOptions } from "../../../../services/connectors/indicadores/IndicadoresHttp.ts"
import {
  IndicadoresServerControl,
  IndicadoresSimulatorServer,
  ServerFault
} from "../../../../services/upstream/IndicadoresSimulatorServer.ts"
import { IndicadoresSource, makeIndicadoresSimulator } from "../../../../services/upstream/IndicadoresSource.ts"
import { waitUntil } from "../../../support/Eventually.ts"
import { setClock } from "../../upstream/helpers.ts"

const RealPort = NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })

/** The HTTP adapter against whatever the test serves; its client closes before the server does. */
const overServer = (options: Omit<IndicadoresHttpOptions, "baseUrl"> = {}) =>
  Layer.unwrapEffect(
    Effect.map(IndicadoresSimulatorServer.baseUrl, (baseUrl) =>
      IndicadoresHttp.layer({ baseUrl, ...options }).pipe(Layer.provide(NodeHttpClient.layerUndici)))
  )

/** The HTTP adapter against the mindicador-shaped simulator server on a real port. */
const adapter = (options: Omit<IndicadoresHttpOptions, "baseUrl"> = {}) =>
  overServer(options).pipe(
    Layer.provideMerge(IndicadoresSimulatorServer.layer({ latencyMs: 0 })),
    Layer.provideMerge(RealPort)
  )

// Retries come fast; a healthy answer is never cut short by a loaded machine.
const quick = { backoff: "5 millis", timeout: "30 seconds" } as const

const simulator = makeIndicadoresSimulator({ timeScale: 0 })

/** An upstream that mixes valid values with a bad date, a null and a string value. */
const dirtyUpstream = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/api/uf/:periodo",
    HttpServerResponse.json({
      version: "1.7.0",
      autor: "mindicador.cl",
      codigo: "uf",
      nombre: "Unidad de fomento (UF)",
      unidad_medida: "Pesos",
      serie: [
        { fecha: "2026-10-02T03:00:00.000Z", valor: 41_073.57 },
        { fecha: "no es fecha", valor: 1 },
        { fecha: "2026-09-30T03:00:00.000Z", valor: null },
        { fecha: "2026-09-29T03:00:00.000Z", valor: "41.046,63" },
        { fecha: "2026-10-01T03:00:00.000Z", valor: 41_060.1 }
      ]
    })
  ),
  HttpRouter.get(
    "/api/uf",
    HttpServerResponse.json({
      version: "1.7.0",
      autor: "mindicador.cl",
      codigo: "uf",
      nombre: "Unidad de fomento (UF)",
      unidad_medida: "Pesos",
      serie: [{ fecha: "2026-10-02T03:00:00.000Z", valor: 41_073.57 }, { valor: 50_000 }]
    })
  )
)

describe("IndicadoresHttp", () => {
  it.effect("decodes values and series exactly as the in-process simulator serves them", () =>
    Effect.gen(function* () {
      yield* setClock("2026-10-02T15:00:00Z")
      const source = yield* IndicadoresSource
      const uf = yield* source.valor("uf")
      assert.deepStrictEqual(uf, {
        codigo: "uf",
        nombre: "Unidad de fomento (UF)",
        unidad_medida: "Pesos",
        fecha: "2026-10-02T03:00:00.000Z",
        valor: 41_073.57
      })
      assert.deepStrictEqual(yield* source.valor("uf", "2026-10-02"), uf)
      assert.deepStrictEqual(yield* source.valor("euro", "2026-09-15"), yield* simulator.valor("euro", "2026-09-15"))
      const saturday = yield* Effect.flip(source.valor("dolar", "2026-10-03"))
      assert.instanceOf(saturday, IndicadorValueNotFound)
      if (saturday._tag === "IndicadorValueNotFound") assert.deepStrictEqual([saturday.codigo, saturday.fecha], ["dolar", "2026-10-03"])

      const september = yield* source.serie("uf", "2026-09-01", "2026-09-30")
      assert.strictEqual(september.serie.length, 30)
      assert.deepStrictEqual(september, yield* simulator.serie("uf", "2026-09-01", "2026-09-30"))
      const acrossYears = yield* source.serie("dolar", "2025-12-15", "2026-01-15")
      assert.deepStrictEqual(acrossYears, yield* simulator.serie("dolar", "2025-12-15", "2026-01-15"))
      assert.isAbove(acrossYears.serie.length, 20)
    }).pipe(Effect.provide(adapter())))

  it.live("retries a 5xx and then succeeds", () =>
    Effect.gen(function* () {
      const control = yield* IndicadoresServerControl
      yield* control.inject(ServerFault.Status({ status: 503, times: 2 }))
      const uf = yield* (yield* IndicadoresSource).valor("uf")
      assert.strictEqual(uf.codigo, "uf")
      assert.strictEqual(yield* control.requests, 3)
    }).pipe(Effect.provide(adapter(quick))))

  it.live("a persistent 5xx ends, after 3 retries, as UpstreamUnavailable", () =>
    Effect.gen(function* () {
      const control = yield* IndicadoresServerControl
      yield* control.inject(ServerFault.Status({ status: 502, times: 100 }))
      const error = yield* Effect.flip((yield* IndicadoresSource).serie("uf", "2026-09-01", "2026-09-30"))
      assert.deepStrictEqual(
        [error._tag, error.upstream, error.reason, error.retryAfterSeconds],
        ["UpstreamUnavailable", "indicadores", "upstream_no_disponible", 30]
      )
      assert.strictEqual(yield* control.requests, 4)
    }).pipe(Effect.provide(adapter(quick))))

  it.live("a 4xx is not retried", () =>
    Effect.gen(function* () {
      const control = yield* IndicadoresServerControl
      yield* control.inject(ServerFault.Status({ status: 404, times: 100 }))
      const error = yield* Effect.flip((yield* IndicadoresSource).valor("uf"))
      assert.strictEqual(error._tag, "UpstreamUnavailable")
      assert.strictEqual(yield* control.requests, 1)
    }).pipe(Effect.provide(adapter(quick))))

  it.effect("a hung upstream times out as UpstreamUnavailable, without retrying, and the next call works", () =>
    Effect.gen(function* () {
      yield* setClock("2026-10-02T15:00:00Z")
      const control = yield* IndicadoresServerControl
      const source = yield* IndicadoresSource
      yield* control.inject(ServerFault.Hang({ times: 1 }))
      const hung = yield* Effect.fork(Effect.flip(source.valor("uf")))
      yield* TestServices.provideLive(waitUntil(control.requests, (n) => n === 1, { what: "the request reaching the upstream" }))
      yield* TestClock.adjust("150 millis")
      const error = yield* Fiber.join(hung)
      assert.strictEqual(error._tag, "UpstreamUnavailable")
      assert.strictEqual(yield* control.requests, 1)
      assert.strictEqual((yield* source.valor("uf")).codigo, "uf")
    }).pipe(Effect.provide(adapter({ ...quick, timeout: "150 millis" }))))

  it.effect("skips invalid values and keeps the valid ones", () =>
    Effect.gen(function* () {
      yield* setClock("2026-10-02T15:00:00Z")
      const source = yield* IndicadoresSource
      const serie = yield* source.serie("uf", "2026-10-01", "2026-10-02")
      assert.deepStrictEqual(serie.serie, [
        { fecha: "2026-10-02T03:00:00.000Z", valor: 41_073.57 },
        { fecha: "2026-10-01T03:00:00.000Z", valor: 41_060.1 }
      ])
      assert.strictEqual((yield* source.valor("uf")).valor, 41_073.57)
    }).pipe(
      Effect.provide(
        overServer().pipe(Layer.provideMerge(HttpServer.serve(dirtyUpstream)), Layer.provideMerge(RealPort))
      )
    ))

  it.effect("IndicadoresLive reads INDICADORES_URL; without it, it is the bundled simulator", () =>
    Effect.gen(function* () {
      yield* setClock("2026-10-02T15:00:00Z")
      const control = yield* IndicadoresServerControl
      const baseUrl = yield* IndicadoresSimulatorServer.baseUrl
      const viaLive = (env: ReadonlyArray<readonly [string, string]>) =>
        Effect.flatMap(IndicadoresSource, (source) => source.valor("uf")).pipe(
          Effect.provide(IndicadoresLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(env))))))
        )
      const simulated = yield* viaLive([["UPSTREAM_TIME_SCALE", "0"]])
      assert.strictEqual(yield* control.requests, 0)
      const live = yield* viaLive([["INDICADORES_URL", baseUrl]])
      assert.strictEqual(yield* control.requests, 1)
      assert.deepStrictEqual(live, simulated)
    }).pipe(Effect.provide(IndicadoresSimulatorServer.layer({ latencyMs: 0 }).pipe(Layer.provideMerge(RealPort)))))
})
