import { HttpClient, HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { insertCompany } from "../../services/catalog/crm/DirectoryRows.ts"
import { HttpTest, issueKey } from "./TestServer.ts"

// Three requests per portal per hour (one lookup of an unknown company spends them): the second call's 429 asks to wait 20 minutes, longer than the client waits.
const StrictCrm = HttpTest.pipe(
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(
    new Map([["CRM_SIMULATOR_RATE", "3"], ["CRM_SIMULATOR_WINDOW_SECONDS", "3600"], ["UPSTREAM_TIME_SCALE", "0"]])
  )))
)

const lookup = (key: Redacted.Redacted<string>, companyId: string) =>
  HttpClientRequest.post("/api/v1/tools/crm_lookup/execute").pipe(
    HttpClientRequest.bearerToken(Redacted.value(key)),
    HttpClientRequest.bodyUnsafeJson({ input: { company_ids: [companyId] } }),
    (request) => Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request)),
    Effect.flatMap((response) =>
      Effect.map(response.json, (body) => ({ status: response.status, retryAfter: response.headers["retry-after"], body }))
    ),
    Effect.scoped
  )

layer(StrictCrm, { excludeTestServices: true })("crm tools over HTTP with the bundled simulator", (it) => {
  it.effect("a CRM rate limit past the client's patience answers 503 with the CRM's Retry-After and a hint", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("crm-http", "free")
      const company = yield* insertCompany()
      const first = yield* lookup(key, company.id)
      assert.strictEqual(first.status, 200)
      const limited = yield* lookup(key, company.id)
      assert.strictEqual(limited.status, 503)
      assert.strictEqual(limited.retryAfter, "1200")
      assert.deepInclude(limited.body, { _tag: "CrmUnavailable", reason: "rate_limited", retryAfterSeconds: 1200 })
    }))
})
