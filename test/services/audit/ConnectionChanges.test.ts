import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { digestOf } from "../../../services/audit/Chain.ts"
import { serveOn } from "../../../src/http/Server.ts"
import { apiClient, issueKey } from "../../src/http/TestServer.ts"
import { rut, simulatedServices } from "../../support/Connected.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { uniqueName } from "../../support/TestLayers.ts"

const HttpConnected = serveOn(NodeHttpServer.layerTest).pipe(
  Layer.provideMerge(simulatedServices()),
  Layer.provideMerge(TestDatabase)
)

layer(HttpConnected, { excludeTestServices: true })("connection changes over REST", (it) => {
  it.effect("creating, updating and deleting a connection leave audit rows in the workspace's chain, never the credentials", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(Option.some(yield* issueKey(uniqueName("paid"), "paid")))
      const clave = `clave-${randomBytes(5).toString("hex")}`
      const user = rut(76700031)
      const created = yield* client.connections.create({
        payload: { connector: "sii", credentials: { rut: user, clave: Redacted.make(clave) } }
      })
      yield* client.connections.updateCredentials({
        path: { id: created.id },
        payload: { credentials: { rut: user, clave: Redacted.make(`${clave}2`) } }
      })
      yield* client.connections.remove({ path: { id: created.id }, payload: {} })

      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ seq: number; toolId: string; surface: string; connectionId: string; inputDigest: string; whole: string }>`
        SELECT a.seq::int AS seq, a.tool_id, a.surface, a.connection_id, a.input_digest, a::text AS whole
        FROM audit_log a WHERE a.connection_id = ${created.id} ORDER BY a.seq`
      assert.deepStrictEqual(rows.map((r) => [r.toolId, r.surface]), [
        ["connections.create", "http"],
        ["connections.credentials.update", "http"],
        ["connections.delete", "http"]
      ])
      assert.strictEqual(rows[0]?.inputDigest, digestOf({ connector: "sii", institution: null }))
      assert.strictEqual(rows[2]?.inputDigest, digestOf({ id: created.id }))
      for (const row of rows) {
        assert.notInclude(row.whole, clave)
        assert.notInclude(row.whole, user)
      }
    }))
})
