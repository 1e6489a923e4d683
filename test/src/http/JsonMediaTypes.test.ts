import { HttpClientRequest } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { rut } from "../../support/Connected.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { HttpTest, issueKey, rawRequest } from "./TestServer.ts"

/** A body sent with its own Content-Type, as a client that speaks a JSON media type of its own sends it. */
const send = (key: Redacted.Redacted<string>, request: HttpClientRequest.HttpClientRequest, text: string, type: string) =>
  rawRequest(request.pipe(HttpClientRequest.bearerToken(Redacted.value(key)), HttpClientRequest.bodyText(text, type)))

const tagOf = (text: string) => (JSON.parse(text) as { readonly _tag?: string })._tag

layer(HttpTest, { excludeTestServices: true })("JSON media types over the REST API", (it) => {
  it.effect("a body of any +json type is read as JSON on the API's routes, as on execute; it is still checked as JSON", () =>
    Effect.gen(function* () {
      const key = yield* issueKey(uniqueName("mediatypes"), "paid")
      const types = ["application/merge-patch+json", "application/vnd.api+json", "Application/Problem+JSON; charset=utf-8"]
      const created = yield* Effect.forEach(types, (type, i) =>
        Effect.map(
          send(
            key,
            HttpClientRequest.post("/api/v1/connections"),
            JSON.stringify({ connector: "sii", credentials: { rut: rut(76900101 + i), clave: "clave-media" } }),
            type
          ),
          (answer) => [type, answer.status, answer.status === 201 ? "created" : answer.text]
        ))
      assert.deepStrictEqual(created, types.map((type) => [type, 201, "created"]))

      const bytes = yield* send(key, HttpClientRequest.post("/api/v1/connections"), "[]", "application/merge-patch+json")
      assert.deepStrictEqual([bytes.status, tagOf(bytes.text)], [422, "InvalidInput"])
      assert.include(bytes.text, "body must be a JSON object, got an array")
      const notJson = yield* send(key, HttpClientRequest.post("/api/v1/connections"), "connect", "application/vnd.api+json")
      assert.deepStrictEqual([notJson.status, tagOf(notJson.text)], [400, "BadRequest"])
      const executed = yield* send(
        key,
        HttpClientRequest.post("/api/v1/tools/core.timestamp.now/execute"),
        `{"input":{}}`,
        "application/vnd.api+json"
      )
      assert.strictEqual(executed.status, 200, executed.text)
    }))
})
