import { assert, layer } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import { Quote } from "../../../schema/budget/Budget.ts"
import { insertCompany } from "../../services/catalog/Directory.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { HttpTest, issueKey } from "../http/TestServer.ts"
import { bearer, callTool, connect, ERAS, errorOf } from "./McpTestServer.ts"

const decodeQuoted = Schema.decodeUnknown(Schema.Struct({ data: Quote }))

layer(HttpTest, { excludeTestServices: true })("a confirmed credits call over MCP", (it) => {
  for (const era of ERAS) {
    it.scoped(`${era}: without its quote_token or idempotency_key it is InvalidInput with the hint of what to send`, () =>
      Effect.gen(function* () {
        const company = yield* insertCompany()
        const key = yield* issueKey(uniqueName("mcp-confirm"), "paid")
        const client = yield* connect(era, bearer(Redacted.value(key)))
        const enrich = (input: Record<string, unknown>) => callTool(client, "company_enrich", { company_ids: [company.id], ...input })

        const unquoted = yield* errorOf(yield* enrich({ confirm: true, idempotency_key: uniqueName("key").replace("-", "_") }))
        assert.deepInclude(unquoted, {
          _tag: "InvalidInput",
          issues: [{
            path: "input.quote_token",
            message: "is required with confirm: true (call without confirm first: its quote has the quote_token)"
          }]
        })
        assert.include(String(unquoted["hint"]), "Call company_enrich without confirm first: it answers a quote")
        assert.include(String(unquoted["hint"]), "confirm: true, that quote_token and an idempotency_key of your choosing")

        const quoted = yield* enrich({})
        const { data: quote } = yield* decodeQuoted(quoted.structuredContent)
        const keyless = yield* errorOf(yield* enrich({ confirm: true, quote_token: quote.quote_token }))
        assert.deepStrictEqual(keyless["issues"], [{ path: "input.idempotency_key", message: "is required with confirm: true" }])
        assert.include(String(keyless["hint"]), "Add an idempotency_key of your choosing")
      }))
  }
})
