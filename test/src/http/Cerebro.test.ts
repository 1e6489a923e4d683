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
})
