import { HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { DirectorySeed } from "../../../services/catalog/empresas/DirectorySeed.ts"
import { bearer, callTool, connect, ERAS, errorOf } from "../mcp/McpTestServer.ts"
import { apiClient, HttpTest, issueKey, rawRequest } from "./TestServer.ts"

const Seeded = Layer.effectDiscard(Effect.flatMap(DirectorySeed, (seed) => seed.load({ seed: "http", companies: 200 }))).pipe(
  Layer.provideMerge(HttpTest)
)

layer(Seeded, { timeout: 120_000 })("empresas over HTTP", (it) => {
  it.effect("companies_search answers over POST /execute; an unknown company is a 404 RecordNotFound with guidance", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("empresas-http", "free")
      const client = yield* apiClient(Option.some(key))
      const found = yield* client.tools.execute({
        path: { id: "companies_search" },
        payload: { input: { q: "Compañía", limit: 3 } },
        headers: {}
      })
      assert.strictEqual(found.meta.tool_id, "companies_search")
      assert.include(JSON.stringify(found.data), "search_id")
      const missing = yield* rawRequest(
        HttpClientRequest.post("/api/v1/tools/company_get/execute").pipe(
          HttpClientRequest.bearerToken(Redacted.value(key)),
          HttpClientRequest.bodyUnsafeJson({ input: { id: "co_nothere" } })
        )
      )
      assert.strictEqual(missing.status, 404)
      assert.include(missing.text, "\"_tag\":\"RecordNotFound\"")
      assert.include(missing.text, "companies_search")
      const forged = Buffer.from(JSON.stringify({ s: "0000000000000000", a: "co_zzzz", t: 1, l: false }), "utf8").toString("base64url")
      const refused = yield* rawRequest(
        HttpClientRequest.post("/api/v1/tools/companies_search/execute").pipe(
          HttpClientRequest.bearerToken(Redacted.value(key)),
          HttpClientRequest.bodyUnsafeJson({ input: { limit: 3, cursor: forged } })
        )
      )
      assert.strictEqual(refused.status, 400)
      assert.include(refused.text, "\"_tag\":\"CursorRejected\"")
      assert.include(refused.text, "\"reason\":\"tampered\"")
    }))

  it.effect("employees past what the database holds are 422 InvalidInput naming the range, which the tool's input schema shows", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("empresas-http-range", "free")
      for (const [field, value] of [["employees_min", "2147483648"], ["employees_max", "9007199254740991"]] as const) {
        const refused = yield* rawRequest(
          HttpClientRequest.post("/api/v1/tools/companies_search/execute").pipe(
            HttpClientRequest.bearerToken(Redacted.value(key)),
            HttpClientRequest.bodyText(`{"input":{"${field}":${value}}}`, "application/json")
          )
        )
        assert.strictEqual(refused.status, 422, refused.text)
        assert.include(refused.text, "\"_tag\":\"InvalidInput\"")
        assert.include(refused.text, `input.${field} must be between 1 and 2,147,483,647, got ${value}`)
      }
      const client = yield* apiClient(Option.some(key))
      const { inputSchema } = yield* client.tools.get({ path: { id: "companies_search" } })
      const properties = inputSchema["properties"] as Record<string, Record<string, unknown>>
      for (const field of ["employees_min", "employees_max"]) {
        assert.deepInclude(properties[field], { type: "integer", minimum: 1, maximum: 2_147_483_647 }, field)
      }
    }))
})

const ErrorBody = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

const execute = (key: Redacted.Redacted<string>, tool: string, input: unknown) =>
  rawRequest(
    HttpClientRequest.post(`/api/v1/tools/${tool}/execute`).pipe(
      HttpClientRequest.bearerToken(Redacted.value(key)),
      HttpClientRequest.bodyUnsafeJson({ input })
    )
  )

layer(HttpTest, { timeout: 120_000 })("empresas over HTTP and MCP on a directory never loaded", (it) => {
  it.scoped("REST and MCP answer the same RecordNotFound (kind directory) naming brein seed, until it is loaded", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("empresas-unloaded", "free")
      const calls = [["companies_search", {}], ["people_search", {}], ["company_get", { id: "co_nothere" }]] as const
      for (const [tool, input] of calls) {
        const answer = yield* execute(key, tool, input)
        assert.strictEqual(answer.status, 404, `${tool}: ${answer.text}`)
        const rest = yield* Schema.decodeUnknown(ErrorBody)(answer.text)
        assert.deepInclude(rest, { _tag: "RecordNotFound", kind: "directory", ids: [] }, tool)
        assert.include(String(rest["hint"]), "brein seed", tool)
        for (const era of ERAS) {
          const client = yield* connect(era, bearer(Redacted.value(key)))
          assert.deepStrictEqual(yield* errorOf(yield* callTool(client, tool, input)), rest, `${era} ${tool}`)
        }
      }
      yield* Effect.flatMap(DirectorySeed, (seed) => seed.load({ seed: "http-unloaded", companies: 5 }))
      const found = yield* execute(key, "companies_search", {})
      assert.strictEqual(found.status, 200, found.text)
      assert.include(found.text, "\"total\":5")
      const client = yield* connect("modern", bearer(Redacted.value(key)))
      assert.notStrictEqual((yield* callTool(client, "companies_search", {})).isError, true)
    }))
})
