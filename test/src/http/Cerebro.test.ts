import { HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { HttpTest, issueKey, rawRequest } from "./TestServer.ts"

const execute = (key: Redacted.Redacted<string>, tool: string, input: unknown) =>
  rawRequest(
    HttpClientRequest.post(`/api/v1/tools/${tool}/execute`).pipe(
      HttpClientRequest.bearerToken(Redacted.value(key)),
      HttpClientRequest.bodyText(JSON.stringify({ input }), "application/json")
    )
  ).pipe(Effect.map((r) => ({ status: r.status, text: r.text, body: JSON.parse(r.text) as Record<string, unknown> })))

interface Field {
  readonly type?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly allOf?: ReadonlyArray<Field>
}

layer(HttpTest, { excludeTestServices: true })("Cerebro over HTTP", (it) => {
  it.effect("a topic is created (200), a duplicate is 409, a stale update 409, a missing topic 404, a secret 422 without its value", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("cerebro-http", "free")
      const created = yield* execute(key, "context_create", { area: "producto", title: "Precio por asiento", body: "USD 30 por usuario." })
      assert.strictEqual(created.status, 200)
      const topic = (created.body["data"] as { readonly topic: { readonly id: string } }).topic

      const again = yield* execute(key, "context_create", { area: "producto", title: "precio por ASIENTO", body: "Otra." })
      assert.strictEqual(again.status, 409)
      assert.deepInclude(again.body, { _tag: "TopicConflict", reason: "duplicate_title", topicId: topic.id })

      yield* execute(key, "context_update", { id: topic.id, version: 1, body: "USD 35 por usuario." })
      const stale = yield* execute(key, "context_update", { id: topic.id, version: 1, body: "USD 40." })
      assert.strictEqual(stale.status, 409)
      assert.deepInclude(stale.body, { _tag: "TopicConflict", reason: "stale_version", currentVersion: 2 })

      const missing = yield* execute(key, "context_get", { id: "tp_nothere" })
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(missing.body["_tag"], "TopicNotFound")

      const secret = yield* execute(key, "context_create", {
        area: "procesos",
        title: "Acceso",
        body: "Usar brein_sk_Zq8PwLr3Tx6VnM2Kc9Bd4Fh7Jy1Gs5 para el CRM"
      })
      assert.strictEqual(secret.status, 422)
      assert.strictEqual(secret.body["_tag"], "InvalidInput")
      assert.include(secret.text, "an API key")
      assert.notInclude(secret.text, "Zq8PwLr3")
    }))

  it.effect("a version past what the database holds is 422 InvalidInput naming the range, which the tools' input schemas show", () =>
    Effect.gen(function* () {
      const key = yield* issueKey("cerebro-http-range", "free")
      const created = yield* execute(key, "context_create", { area: "producto", title: "Versiones", body: "La primera." })
      const topic = (created.body["data"] as { readonly topic: { readonly id: string } }).topic
      for (const [tool, change] of [["context_get", {}], ["context_update", { body: "La segunda." }]] as const) {
        const refused = yield* execute(key, tool, { id: topic.id, version: 2_147_483_648, ...change })
        assert.strictEqual(refused.status, 422, refused.text)
        assert.deepInclude(refused.body, {
          _tag: "InvalidInput",
          message: "input.version must be between 1 and 2,147,483,647, got 2147483648"
        })
        const document = yield* rawRequest(HttpClientRequest.get(`/api/v1/tools/${tool}`))
        const version = (JSON.parse(document.text) as { readonly inputSchema: { readonly properties: Record<string, Field> } })
          .inputSchema.properties["version"]
        // an optional field with its own description wraps the integer in allOf
        const integer = [version, ...(version?.allOf ?? [])].find((field) => field?.type === "integer")
        assert.deepInclude(integer, { minimum: 1, maximum: 2_147_483_647 }, tool)
      }
    }))
})
