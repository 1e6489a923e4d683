import { HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { DirectorySeed } from "../../../services/catalog/empresas/DirectorySeed.ts"
import { insertMercado } from "../../services/catalog/mercado/Fixtures.ts"
import { apiClient, HttpTest, issueKey } from "./TestServer.ts"

// A directory too, so that companies_search (another family's tool) answers rather than saying none is loaded.
const loadDirectory = Effect.flatMap(DirectorySeed, (seed) => seed.load({ seed: "mercado-http", companies: 5 }))
const Seeded = Layer.effectDiscard(Effect.zipRight(insertMercado, loadDirectory)).pipe(Layer.provideMerge(HttpTest))

const execute = (key: Redacted.Redacted<string>, tool: string, input: unknown) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    client.execute(
      HttpClientRequest.post(`/api/v1/tools/${tool}/execute`).pipe(
        HttpClientRequest.bearerToken(Redacted.value(key)),
        HttpClientRequest.bodyUnsafeJson({ input })
      )
    )).pipe(
      Effect.flatMap((response) =>
        Effect.map(response.text, (text) => ({
          status: response.status,
          exposure: response.headers["x-driftless-model-exposure"],
          text
        }))
      ),
      Effect.scoped
    )

layer(Seeded, { timeout: 120_000 })("mercado over HTTP", (it) => {
  it.effect("Mercado answers and errors carry X-Driftless-Model-Exposure: abstracted; other tools' answers do not", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("mercado-http", "free")
      const found = yield* execute(key, "market_search_suppliers", { state: "Jalisco" })
      assert.deepStrictEqual([found.status, found.exposure], [200, "abstracted"])
      assert.include(found.text, "sup_1")
      const missing = yield* execute(key, "market_get_supplier", { id: "sup_nothere" })
      assert.deepStrictEqual([missing.status, missing.exposure], [404, "abstracted"])
      assert.include(missing.text, "\"_tag\":\"RecordNotFound\"")
      const invalid = yield* execute(key, "market_search_awards", { state: "MX-XXX" })
      assert.deepStrictEqual([invalid.status, invalid.exposure], [422, "abstracted"])
      const tampered = yield* execute(key, "market_search_awards", { cursor: "x.y" })
      assert.deepStrictEqual([tampered.status, tampered.exposure], [400, "abstracted"])
      assert.include(tampered.text, "\"reason\":\"tampered\"")
      // a percent-encoded id is left to the HttpApi route, which marks its answers the same way
      const encoded = yield* execute(key, "market%5Fsearch%5Fsuppliers", { state: "Jalisco" })
      assert.deepStrictEqual([encoded.status, encoded.exposure, encoded.text.includes("sup_3")], [200, "abstracted", true])
      const other = yield* execute(key, "companies_search", { limit: 1 })
      assert.deepStrictEqual([other.status, other.exposure], [200, undefined])
      const otherError = yield* execute(key, "company_get", { id: "co_nothere" })
      assert.deepStrictEqual([otherError.status, otherError.exposure], [404, undefined])
    }))

  it.effect("the tool document shows the exposure of Mercado tools only", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(Option.none())
      const mercado = yield* client.tools.get({ path: { id: "market_search_awards" } })
      assert.deepStrictEqual([mercado.exposure, mercado.family, mercado.cost, mercado.stages], [
        "abstracted",
        "mercado",
        { kind: "read" },
        ["buscando"]
      ])
      const capabilities = yield* client.tools.get({ path: { id: "market_capabilities" } })
      assert.deepStrictEqual(capabilities.stages, [])
      const other = yield* client.tools.get({ path: { id: "companies_search" } })
      assert.isUndefined(other.exposure)
    }))
})
