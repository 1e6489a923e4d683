import { FetchHttpClient, HttpClient, HttpClientResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { createServer } from "node:http"
import { IndicadoresResumen, IndicadorSerie } from "../../../schema/upstream/Indicador.ts"
import { IndicadoresServerControl, IndicadoresSimulatorServer, ServerFault } from "../../../services/upstream/IndicadoresSimulatorServer.ts"
import { setClock } from "./helpers.ts"

const served = (options: Parameters<typeof IndicadoresSimulatorServer.layer>[0] = { latencyMs: 0 }) =>
  IndicadoresSimulatorServer.layer(options).pipe(Layer.provideMerge(NodeHttpServer.layerTest))

const getSerie = (path: string) => Effect.flatMap(HttpClient.get(path), HttpClientResponse.schemaBodyJson(IndicadorSerie))

describe("IndicadoresSimulatorServer", () => {
  it.effect("serves GET /api with every indicator", () =>
    Effect.gen(function* () {
      yield* setClock("2026-10-02T15:00:00Z")
      const body = yield* Effect.flatMap(HttpClient.get("/api"), HttpClientResponse.schemaBodyJson(IndicadoresResumen))
      assert.deepStrictEqual([body.version, body.autor, body.fecha], ["1.7.0", "mindicador.cl", "2026-10-02T15:00:00.000Z"])
      assert.strictEqual(body.uf.valor, 41_073.57)
      assert.strictEqual(body.dolar_intercambio.fecha, "2014-11-13T03:00:00.000Z")
    }).pipe(Effect.provide(served())))

  it.effect("serves /api/{codigo} newest first and /api/{codigo}/{DD-MM-YYYY}", () =>
    Effect.gen(function* () {
      yield* setClock("2026-10-02T15:00:00Z")
      const dolar = yield* getSerie("/api/dolar")
      assert.strictEqual(dolar.serie.length, 30)
      assert.strictEqual(dolar.serie[0]?.fecha, "2026-10-02T03:00:00.000Z")
      assert.isTrue((dolar.serie[0]?.fecha ?? "") > (dolar.serie[1]?.fecha ?? ""))
      const uf = yield* getSerie("/api/uf/02-10-2026")
      assert.deepStrictEqual(uf.serie, [{ fecha: "2026-10-02T03:00:00.000Z", valor: 41_073.57 }])
      const saturday = yield* getSerie("/api/dolar/03-10-2026")
      assert.deepStrictEqual(saturday.serie, [])
      const utm = yield* getSerie("/api/utm/2026")
      assert.strictEqual(utm.serie.length, 10)
      const unknown = yield* HttpClient.get("/api/peso_argentino")
      assert.strictEqual(unknown.status, 404)
      const badDate = yield* HttpClient.get("/api/uf/31-02-2026")
      assert.strictEqual(badDate.status, 404)
    }).pipe(Effect.provide(served())))

  it.effect("injects 5xx for the next N requests, then recovers", () =>
    Effect.gen(function* () {
      yield* setClock("2026-10-02T15:00:00Z")
      const control = yield* IndicadoresServerControl
      yield* control.inject(ServerFault.Status({ status: 503, times: 2 }))
      const statuses = yield* Effect.forEach([1, 2, 3], () => Effect.map(HttpClient.get("/api/uf"), (r) => r.status))
      assert.deepStrictEqual(statuses, [503, 503, 200])
      assert.strictEqual(yield* control.requests, 3)
    }).pipe(Effect.provide(served())))

  it.live("a hanging upstream trips the client's timeout; a real port serves fetch clients", () =>
    Effect.gen(function* () {
      const control = yield* IndicadoresServerControl
      const baseUrl = yield* IndicadoresSimulatorServer.baseUrl
      const client = yield* HttpClient.HttpClient
      yield* control.inject(ServerFault.Hang({ times: 1 }))
      const hung = yield* Effect.exit(client.get(`${baseUrl}/api/uf`).pipe(Effect.timeout("200 millis")))
      assert.isTrue(Exit.isFailure(hung))
      const ok = yield* client.get(`${baseUrl}/api/uf`)
      assert.strictEqual(ok.status, 200)
      const staleBitcoin = yield* Effect.flatMap(client.get(`${baseUrl}/api`), HttpClientResponse.schemaBodyJson(IndicadoresResumen))
      const fresh = yield* Effect.flatMap(client.get(`${baseUrl}/api/bitcoin`), HttpClientResponse.schemaBodyJson(IndicadorSerie))
      assert.isTrue(staleBitcoin.bitcoin.fecha < (fresh.serie[0]?.fecha ?? ""), "bitcoin is served 20 days stale in GET /api")
    }).pipe(
      Effect.provide(
        IndicadoresSimulatorServer.layer({ latencyMs: 0, staleDays: { bitcoin: 20 } }).pipe(
          Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
          Layer.provideMerge(FetchHttpClient.layer)
        )
      )
    ))
})
