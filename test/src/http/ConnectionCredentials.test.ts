import { HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { digestOf } from "../../../services/audit/Chain.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { Vault, VaultKey } from "../../../services/connections/Vault.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { serveOn } from "../../../src/http/Server.ts"
import { rut, SECRET_KEY, simulatedServices } from "../../support/Connected.ts"
import { commitFirst } from "../../support/Interleave.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal, uniqueName } from "../../support/TestLayers.ts"
import { apiClient, issueKey, rawRequest } from "./TestServer.ts"

const HttpConnected = serveOn(NodeHttpServer.layerTest).pipe(
  Layer.provideMerge(simulatedServices()),
  Layer.provideMerge(TestDatabase)
)

const NEW_CLAVE = `clave-nueva-${randomBytes(5).toString("hex")}`
const decodeSync = Schema.decodeUnknown(SyncOutput)
const vault = Vault.Default.pipe(Layer.provide(VaultKey.fixed(Buffer.from(SECRET_KEY, "base64"))))

const workspace = Effect.gen(function* () {
  const key = yield* issueKey(uniqueName("paid"), "paid")
  return { key, client: yield* apiClient(Option.some(key)) }
})

const storedCredentials = (id: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ credentials: string }>`SELECT credentials FROM connections WHERE id = ${id}`
    return row?.credentials ?? ""
  })

layer(HttpConnected, { excludeTestServices: true })("PATCH /api/v1/connections/{id}", (it) => {
  it.effect("replaces refused credentials: sealed again, back to pendiente, audited without the secret; the next sync logs in with them", () =>
    Effect.gen(function* () {
      const { client } = yield* workspace
      const user = rut(76700001)
      const periodo = yield* monthsAgo(1)
      const created = yield* client.connections.create({
        payload: { connector: "sii", credentials: { rut: user, clave: Redacted.make("invalida") } }
      })
      const sync = () =>
        client.tools.execute({
          path: { id: "sii.conexion.sincronizar" },
          payload: { input: { periodo, perspectiva: "ventas", esperar: 20 } },
          headers: { "x-connect-connection": created.id }
        }).pipe(Effect.flatMap((r) => decodeSync(r.data)))
      assert.strictEqual((yield* sync()).estado, "error")
      const refused = yield* client.connections.get({ path: { id: created.id } })
      assert.deepStrictEqual([refused.state, refused.reason], ["error", "credenciales_invalidas"])
      const before = yield* storedCredentials(created.id)

      const [updated, response] = yield* client.connections.updateCredentials({
        path: { id: created.id },
        payload: { credentials: { rut: user, clave: Redacted.make(NEW_CLAVE) } },
        withResponse: true
      })
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual([updated.id, updated.state, updated.reason, updated.hint], [created.id, "pendiente", null, null])

      const sealed = yield* storedCredentials(created.id)
      assert.notStrictEqual(sealed, before)
      assert.notInclude(sealed, NEW_CLAVE)
      assert.deepStrictEqual(JSON.parse(yield* Effect.flatMap(Vault, (v) => v.open(sealed)).pipe(Effect.provide(vault))), {
        rut: user,
        clave: NEW_CLAVE
      })

      const sql = yield* SqlClient.SqlClient
      const audit = yield* sql<{ surface: string; toolId: string; connectionId: string; inputDigest: string; outcome: string }>`
        SELECT surface, tool_id, connection_id, input_digest, outcome FROM audit_log WHERE tool_id = 'connections.credentials.update' AND connection_id = ${created.id}`
      assert.deepStrictEqual(audit, [{
        surface: "http",
        toolId: "connections.credentials.update",
        connectionId: created.id,
        inputDigest: digestOf({ id: created.id }),
        outcome: "ok"
      }])
      const everyAuditRow = yield* sql<{ text: string }>`SELECT a::text AS text FROM audit_log a`
      for (const row of everyAuditRow) assert.notInclude(row.text, NEW_CLAVE)

      const resynced = yield* sync()
      assert.strictEqual(resynced.estado, "sincronizada")
      const sessions = (yield* (yield* SiiSimulator).sessions).filter((e) => e.rut === user).map((e) => e.kind)
      assert.deepStrictEqual(sessions, ["rejected", "start", "end"])
    }))

  it.effect("validates the credentials like create, and answers 404 for an unknown or another workspace's connection", () =>
    Effect.gen(function* () {
      const owner = yield* workspace
      const stranger = yield* workspace
      const theirs = yield* owner.client.connections.create({
        payload: { connector: "sii", credentials: { rut: rut(76700002), clave: Redacted.make("clave-1") } }
      })
      const before = yield* storedCredentials(theirs.id)
      const payload = { credentials: { rut: rut(76700002), clave: Redacted.make(NEW_CLAVE) } }
      for (const [client, id] of [[stranger.client, theirs.id], [owner.client, "conn_does_not_exist"]] as const) {
        const error = yield* Effect.flip(client.connections.updateCredentials({ path: { id }, payload }))
        assert.strictEqual(error._tag, "ConnectionNotFound")
      }
      for (const bad of [{ rut: "12345678-9", clave: NEW_CLAVE }, { rut: rut(76700002), clave: "" }, { rut: rut(76700002) }]) {
        const raw = yield* rawRequest(
          HttpClientRequest.patch(`/api/v1/connections/${theirs.id}`).pipe(
            HttpClientRequest.bearerToken(Redacted.value(owner.key)),
            HttpClientRequest.bodyUnsafeJson({ credentials: bad })
          )
        )
        assert.isTrue(raw.status >= 400 && raw.status < 500, `${raw.status} for ${JSON.stringify(bad)}`)
        assert.notInclude(raw.text, NEW_CLAVE)
      }
      assert.strictEqual(yield* storedCredentials(theirs.id), before, "nothing was replaced")
      const sql = yield* SqlClient.SqlClient
      const [audited] = yield* sql<
        { n: number }
      >`SELECT count(*)::int AS n FROM audit_log WHERE connection_id = ${theirs.id} AND tool_id = 'connections.credentials.update'`
      assert.strictEqual(audited?.n, 0)
    }))

  it.effect("keeps the connection's RUT: another taxpayer's is refused (422) and nothing is replaced; the same RUT written with dots passes", () =>
    Effect.gen(function* () {
      const { key, client } = yield* workspace
      const own = rut(76700004)
      const created = yield* client.connections.create({
        payload: { connector: "sii", credentials: { rut: own, clave: Redacted.make("clave-1") } }
      })
      const before = yield* storedCredentials(created.id)
      const patch = (credentials: unknown) =>
        rawRequest(
          HttpClientRequest.patch(`/api/v1/connections/${created.id}`).pipe(
            HttpClientRequest.bearerToken(Redacted.value(key)),
            HttpClientRequest.bodyUnsafeJson({ credentials })
          )
        )
      const other = yield* patch({ rut: rut(76700005), clave: NEW_CLAVE })
      assert.strictEqual(other.status, 422, other.text)
      assert.deepInclude(JSON.parse(other.text), {
        _tag: "InvalidInput",
        issues: [{ path: "credentials.rut", message: "must be the RUT this connection was made with" }]
      })
      assert.strictEqual(yield* storedCredentials(created.id), before, "nothing was replaced")
      const sql = yield* SqlClient.SqlClient
      const [audited] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM audit_log WHERE connection_id = ${created.id} AND tool_id = 'connections.credentials.update'`
      assert.strictEqual(audited?.n, 0, "a refused replacement is not audited as done")

      const [body, digit] = own.split("-")
      const dotted = `${body?.slice(0, 2)}.${body?.slice(2, 5)}.${body?.slice(5)}-${digit}`
      const same = yield* patch({ rut: dotted, clave: NEW_CLAVE })
      assert.strictEqual(same.status, 200, same.text)
      assert.notStrictEqual(yield* storedCredentials(created.id), before)
    }))

  it.effect("a workspace moved to the free plan cannot replace credentials (403 plan_required, nothing replaced or audited), but reads and deletes its connection", () =>
    Effect.gen(function* () {
      const name = uniqueName("downgraded")
      const paidClient = yield* apiClient(Option.some(yield* issueKey(name, "paid")))
      const created = yield* paidClient.connections.create({
        payload: { connector: "sii", credentials: { rut: rut(76700006), clave: Redacted.make("clave-1") } }
      })
      const before = yield* storedCredentials(created.id)
      const client = yield* apiClient(Option.some(yield* issueKey(name, "free")))

      const error = yield* Effect.flip(client.connections.updateCredentials({
        path: { id: created.id },
        payload: { credentials: { rut: rut(76700006), clave: Redacted.make(NEW_CLAVE) } }
      }))
      assert.strictEqual(error._tag, "Forbidden")
      if (error._tag === "Forbidden") {
        assert.strictEqual(error.reason, "plan_required")
        assert.include(error.hint ?? "", `DELETE /api/v1/connections/${created.id}`)
      }
      assert.strictEqual(yield* storedCredentials(created.id), before, "nothing was replaced")
      const sql = yield* SqlClient.SqlClient
      const [audited] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM audit_log WHERE connection_id = ${created.id} AND tool_id = 'connections.credentials.update'`
      assert.strictEqual(audited?.n, 0, "a refused replacement is not audited")

      assert.strictEqual((yield* client.connections.get({ path: { id: created.id } })).state, "pendiente")
      assert.deepStrictEqual((yield* client.connections.jobs({ path: { id: created.id }, urlParams: {} })).jobs, [])
      yield* client.connections.remove({ path: { id: created.id }, payload: {} })
      assert.strictEqual((yield* Effect.flip(client.connections.get({ path: { id: created.id } })))._tag, "ConnectionNotFound")
    }))

  it.effect("a PATCH that loses the race with a DELETE of its connection is 404 ConnectionNotFound, and writes nothing", () =>
    Effect.gen(function* () {
      const { key, principal } = yield* issuePrincipal("paid")
      const client = yield* apiClient(Option.some(key))
      const created = yield* client.connections.create({
        payload: { connector: "sii", credentials: { rut: rut(76700003), clave: Redacted.make("clave-1") } }
      })
      // The DELETE holds the row (deleted, not yet committed) while the PATCH waits to update it.
      const patched = yield* commitFirst({
        first: Effect.flatMap(Connections, (connections) => connections.remove(principal, created.id)),
        waitsAt: "SELECT connector, institution, credentials, state, state_reason, credentials_generation%FOR UPDATE",
        what: "the PATCH waiting for the row the DELETE holds"
      })(
        rawRequest(
          HttpClientRequest.patch(`/api/v1/connections/${created.id}`).pipe(
            HttpClientRequest.bearerToken(Redacted.value(key)),
            HttpClientRequest.bodyUnsafeJson({ credentials: { rut: rut(76700003), clave: NEW_CLAVE } })
          )
        )
      )
      assert.strictEqual(patched.status, 404, patched.text)
      assert.strictEqual((JSON.parse(patched.text) as { readonly _tag: string })._tag, "ConnectionNotFound")
      const sql = yield* SqlClient.SqlClient
      const [left] = yield* sql<{ connections: number; audited: number }>`
        SELECT (SELECT count(*)::int FROM connections WHERE id = ${created.id}) AS connections,
               (SELECT count(*)::int FROM audit_log WHERE connection_id = ${created.id} AND tool_id = 'connections.credentials.update') AS audited`
      assert.deepStrictEqual(left, { connections: 0, audited: 0 }, "deleted, and no replacement audited")
      const gone = yield* Effect.flip(client.connections.get({ path: { id: created.id } }))
      assert.strictEqual(gone._tag, "ConnectionNotFound")
    }))
})
