import { FileSystem, HttpClientRequest } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { ServiceUnavailable } from "../../../schema/Errors.ts"
import { rut, simulatedServices } from "../../support/Connected.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { httpTestOver, issueKey, rawRequest } from "./TestServer.ts"

/** The service as `serve` runs it without BREIN_SECRET_KEY, over a data folder whose secret.key is not a key. */
const UnusableKey = Layer.unwrapScoped(Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const dataDir = yield* fs.makeTempDirectoryScoped({ prefix: "brein-key-" })
  yield* fs.writeFileString(`${dataDir}/secret.key`, "kept")
  return httpTestOver(simulatedServices({ BREIN_SECRET_KEY: null, BREIN_DATA_DIR: dataDir }))
})).pipe(Layer.provide(NodeContext.layer))

const SEALED_ELSEWHERE = "v1:a:b:c"

layer(UnusableKey, { excludeTestServices: true })("credentials the server cannot seal (its credentials key unusable)", (it) => {
  it.effect("POST and PATCH /api/v1/connections answer 503 ServiceUnavailable with Retry-After, and store nothing", () =>
    Effect.gen(function* () {
      const workspace = uniqueName("keyless")
      const key = Redacted.value(yield* issueKey(workspace, "paid"))
      const sql = yield* SqlClient.SqlClient
      const [found] = yield* sql<{ id: string }>`SELECT id FROM workspaces WHERE name = ${workspace}`
      const workspaceId = found?.id ?? ""
      // a connection whose credentials an earlier key sealed
      const connectionId = `conn_${workspaceId.slice(3)}`
      yield* sql`INSERT INTO connections (id, workspace_id, connector, credentials)
                 VALUES (${connectionId}, ${workspaceId}, 'sii', ${SEALED_ELSEWHERE})`
      const send = (method: "POST" | "PATCH", path: string, body: unknown) =>
        rawRequest(
          HttpClientRequest.make(method)(path).pipe(
            HttpClientRequest.bearerToken(key),
            HttpClientRequest.bodyText(JSON.stringify(body), "application/json")
          )
        )
      const credentials = { rut: rut(76950001), clave: "clave-de-prueba" }
      const answers = [
        yield* send("POST", "/api/v1/connections", { connector: "sii", credentials }),
        yield* send("PATCH", `/api/v1/connections/${connectionId}`, { credentials })
      ]
      for (const answer of answers) {
        assert.strictEqual(answer.status, 503, answer.text)
        assert.deepStrictEqual(JSON.parse(answer.text), {
          _tag: "ServiceUnavailable",
          message: ServiceUnavailable.credentialsKey.message,
          retryAfterSeconds: ServiceUnavailable.credentialsKey.retryAfterSeconds
        })
        assert.strictEqual(answer.retryAfter, String(ServiceUnavailable.credentialsKey.retryAfterSeconds))
      }
      const rows = yield* sql<{ id: string; credentials: string; state: string }>`
        SELECT id, credentials, state FROM connections WHERE workspace_id = ${workspaceId}`
      assert.deepStrictEqual(rows, [{ id: connectionId, credentials: SEALED_ELSEWHERE, state: "pendiente" }], "nothing was stored")
      const audited = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_log
        WHERE workspace_id = ${workspaceId} AND tool_id LIKE 'connections.%' AND outcome = 'ok'`
      assert.strictEqual(audited[0]?.n, 0, "no change was audited as done")
    }))
})
