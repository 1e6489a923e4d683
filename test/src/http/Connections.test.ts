import { HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { serveOn } from "../../../src/http/Server.ts"
import { rut, simulatedServices } from "../../support/Connected.ts"
import { withFailingInserts } from "../../support/Faults.ts"
import { commitFirst } from "../../support/Interleave.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal, uniqueName } from "../../support/TestLayers.ts"
import { apiClient, issueKey, rawRequest } from "./TestServer.ts"

const HttpConnected = serveOn(NodeHttpServer.layerTest).pipe(
  Layer.provideMerge(simulatedServices()),
  Layer.provideMerge(TestDatabase)
)

const CLAVE = `clave-http-${randomBytes(5).toString("hex")}`
const decodeSync = Schema.decodeUnknown(SyncOutput)

/** A workspace on the plan, its key, and the typed client with that key. */
const workspace = (plan: "free" | "paid") =>
  Effect.gen(function* () {
    const key = yield* issueKey(uniqueName(plan), plan)
    return { key, client: yield* apiClient(Option.some(key)) }
  })

const get = (key: Redacted.Redacted<string>, path: string) =>
  rawRequest(HttpClientRequest.get(path).pipe(HttpClientRequest.bearerToken(Redacted.value(key))))

const rowsOf = (connectionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ documents: number; coverage: number; jobs: number; history: number; connections: number }>`
      SELECT (SELECT count(*)::int FROM rcv_documents WHERE connection_id = ${connectionId}) AS documents,
             (SELECT count(*)::int FROM sync_coverage WHERE connection_id = ${connectionId}) AS coverage,
             (SELECT count(*)::int FROM sync_jobs WHERE connection_id = ${connectionId}) AS jobs,
             (SELECT count(*)::int FROM cache_history WHERE connection_id = ${connectionId}) AS history,
             (SELECT count(*)::int FROM connections WHERE id = ${connectionId}) AS connections`
  ).pipe(Effect.map((rows) => rows[0]))

layer(HttpConnected, { excludeTestServices: true })("HTTP connections API", (it) => {
  it.effect("create (201), sync, get with coverage, list, jobs, delete with its cache; the clave is never in a response", () =>
    Effect.gen(function* () {
      const { client, key } = yield* workspace("paid")
      const [created, response] = yield* client.connections.create({
        payload: { connector: "sii", credentials: { rut: rut(76900001), clave: Redacted.make(CLAVE) } },
        withResponse: true
      })
      assert.strictEqual(response.status, 201)
      assert.deepStrictEqual(
        {
          connector: created.connector,
          institution: created.institution,
          state: created.state,
          reason: created.reason,
          coverage: created.coverage
        },
        { connector: "sii", institution: null, state: "pendiente", reason: null, coverage: [] }
      )
      assert.match(created.id, /^conn_/)

      const executed = yield* client.tools.execute({
        path: { id: "sii.conexion.sincronizar" },
        payload: { input: { periodo: "2026-10", perspectiva: "ventas", esperar: 20 } },
        headers: { "x-connect-connection": created.id }
      })
      const synced = yield* decodeSync(executed.data)
      assert.strictEqual(synced.estado, "sincronizada")
      assert.strictEqual(executed.meta.plane, "read")

      const fetched = yield* client.connections.get({ path: { id: created.id } })
      assert.strictEqual(fetched.state, "sincronizada")
      assert.deepStrictEqual(fetched.coverage.map((c) => [c.scope, c.completo]), [[{ periodo: "2026-10", perspectiva: "ventas" }, true]])
      assert.isTrue(Date.parse(fetched.coverage[0]?.sincronizadoEn ?? "") >= Date.parse(created.createdAt))

      const second = yield* client.connections.create({
        payload: { connector: "sii", credentials: { rut: rut(76900002), clave: Redacted.make(CLAVE) } }
      })
      const { connections } = yield* client.connections.list()
      assert.deepStrictEqual(connections.map((c) => c.id), [created.id, second.id])

      const { jobs } = yield* client.connections.jobs({ path: { id: created.id }, urlParams: {} })
      assert.deepStrictEqual(jobs.map((j) => [j.scope, j.state, j.attempts, j.error]), [[
        { periodo: "2026-10", perspectiva: "ventas" },
        "sincronizada",
        1,
        null
      ]])
      assert.strictEqual(jobs[0]?.counts["nuevos"], jobs[0]?.counts["documentos"])
      assert.isAbove(jobs[0]?.counts["documentos"] ?? 0, 0)

      for (const path of [`/api/v1/connections/${created.id}`, "/api/v1/connections", `/api/v1/connections/${created.id}/jobs`]) {
        const raw = yield* get(key, path)
        assert.strictEqual(raw.status, 200, path)
        assert.notInclude(raw.text, CLAVE, path)
        assert.notInclude(raw.text, "credentials", path)
      }
      assert.notInclude(JSON.stringify(executed), CLAVE)

      const before = yield* rowsOf(created.id)
      assert.isAbove(before?.documents ?? 0, 0)
      const [, deleted] = yield* client.connections.remove({ path: { id: created.id }, payload: {}, withResponse: true })
      assert.strictEqual(deleted.status, 204)
      assert.deepStrictEqual(yield* rowsOf(created.id), { documents: 0, coverage: 0, jobs: 0, history: 0, connections: 0 })
      const gone = yield* Effect.flip(client.connections.get({ path: { id: created.id } }))
      assert.strictEqual(gone._tag, "ConnectionNotFound")
      assert.deepStrictEqual((yield* client.connections.list()).connections.map((c) => c.id), [second.id])
    }))

  it.effect("of two DELETEs of a connection at the same moment, one deletes it and the other is 404 ConnectionNotFound", () =>
    Effect.gen(function* () {
      const { key, principal } = yield* issuePrincipal("paid")
      const client = yield* apiClient(Option.some(key))
      const created = yield* client.connections.create({
        payload: { connector: "sii", credentials: { rut: rut(76900006), clave: Redacted.make(CLAVE) } }
      })
      const removed = yield* commitFirst({
        first: Effect.flatMap(Connections, (connections) => connections.remove(principal, created.id)),
        waitsAt: "DELETE FROM connections",
        what: "the second DELETE waiting for the row the first holds"
      })(rawRequest(HttpClientRequest.del(`/api/v1/connections/${created.id}`).pipe(HttpClientRequest.bearerToken(Redacted.value(key)))))
      assert.strictEqual(removed.status, 404, removed.text)
      assert.strictEqual((JSON.parse(removed.text) as { readonly _tag: string })._tag, "ConnectionNotFound")
      const sql = yield* SqlClient.SqlClient
      const [audited] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM audit_log WHERE connection_id = ${created.id} AND tool_id = 'connections.delete'`
      assert.strictEqual(audited?.n, 0, "the DELETE that found nothing to delete audits no deletion")
      assert.deepStrictEqual(yield* rowsOf(created.id), { documents: 0, coverage: 0, jobs: 0, history: 0, connections: 0 })
    }))

  it.effect("DELETE takes no body or {}: a body not JSON (400), a field (422), another type (415) is refused and the connection stays", () =>
    Effect.gen(function* () {
      const { client, key } = yield* workspace("paid")
      const connect = (n: number) =>
        client.connections.create({ payload: { connector: "sii", credentials: { rut: rut(n), clave: Redacted.make(CLAVE) } } })
      const remove = (id: string, body?: { readonly text: string; readonly type: string }) =>
        rawRequest(
          HttpClientRequest.del(`/api/v1/connections/${id}`).pipe(
            HttpClientRequest.bearerToken(Redacted.value(key)),
            (request) => body === undefined ? request : HttpClientRequest.bodyText(request, body.text, body.type)
          )
        )
      const kept = yield* connect(76900008)
      const bodies = [
        { text: "delete it", type: "application/json", answer: [400, "BadRequest", "the request body is not valid JSON"] },
        { text: `{"force":true}`, type: "application/json", answer: [422, "InvalidInput", "force is not a field this input accepts"] },
        { text: "[]", type: "application/json", answer: [422, "InvalidInput", "body must be a JSON object, got an array"] },
        {
          text: "{}",
          type: "text/plain",
          answer: [
            415,
            "UnsupportedMediaType",
            "the request body must be JSON: send it with Content-Type: application/json, not text/plain"
          ]
        }
      ] as const
      const answered = yield* Effect.forEach(bodies, (body) =>
        Effect.map(remove(kept.id, body), (answer): ReadonlyArray<unknown> => {
          const error = answer.text === "" ? {} : JSON.parse(answer.text) as { readonly _tag?: string; readonly message?: string }
          return [`${body.type} ${body.text}`, answer.status, error._tag, error.message]
        }))
      assert.deepStrictEqual<ReadonlyArray<ReadonlyArray<unknown>>>(
        answered,
        bodies.map((body) => [`${body.type} ${body.text}`, ...body.answer])
      )
      assert.strictEqual((yield* rowsOf(kept.id))?.connections, 1, "no refused body deleted it")
      assert.strictEqual((yield* client.connections.get({ path: { id: kept.id } })).state, "pendiente")

      assert.strictEqual((yield* remove(kept.id, { text: "{}", type: "application/json" })).status, 204)
      assert.strictEqual((yield* rowsOf(kept.id))?.connections, 0)
      const other = yield* connect(76900009)
      assert.strictEqual((yield* remove(other.id)).status, 204, "no body at all")
      assert.strictEqual((yield* rowsOf(other.id))?.connections, 0)
    }))

  it.effect("a free workspace cannot connect: 403 plan_required", () =>
    Effect.gen(function* () {
      const { client } = yield* workspace("free")
      const error = yield* Effect.flip(
        client.connections.create({ payload: { connector: "sii", credentials: { rut: rut(76900003), clave: Redacted.make(CLAVE) } } })
      )
      assert.strictEqual(error._tag, "Forbidden")
      if (error._tag === "Forbidden") assert.strictEqual(error.reason, "plan_required")
      assert.deepStrictEqual((yield* client.connections.list()).connections, [])
    }))

  it.effect("a banco connection without its institution is InvalidInput (422) naming the field", () =>
    Effect.gen(function* () {
      const { client } = yield* workspace("paid")
      const error = yield* Effect.flip(
        client.connections.create({ payload: { connector: "banco", credentials: { rut: rut(76900004), clave: Redacted.make(CLAVE) } } })
      )
      assert.strictEqual(error._tag, "InvalidInput")
      if (error._tag === "InvalidInput") assert.deepStrictEqual(error.issues.map((i) => i.path), ["institution"])
      const raw = yield* rawRequest(
        HttpClientRequest.post("/api/v1/connections").pipe(
          HttpClientRequest.bearerToken(Redacted.value((yield* workspace("paid")).key)),
          HttpClientRequest.bodyUnsafeJson({ connector: "banco", credentials: { rut: rut(76900004), clave: CLAVE } })
        )
      )
      assert.strictEqual(raw.status, 422)
    }))

  it.effect("an sii connection naming a bank, or a clave over 256 characters, is InvalidInput (422) naming the field; nothing is made", () =>
    Effect.gen(function* () {
      const { client, key } = yield* workspace("paid")
      const error = yield* Effect.flip(
        client.connections.create({
          payload: { connector: "sii", institution: "bci", credentials: { rut: rut(76900007), clave: Redacted.make(CLAVE) } }
        })
      )
      assert.strictEqual(error._tag, "InvalidInput")
      if (error._tag === "InvalidInput") assert.deepStrictEqual(error.issues.map((i) => i.path), ["institution"])
      const long = "k".repeat(257)
      const raw = yield* rawRequest(
        HttpClientRequest.post("/api/v1/connections").pipe(
          HttpClientRequest.bearerToken(Redacted.value(key)),
          HttpClientRequest.bodyUnsafeJson({ connector: "sii", credentials: { rut: rut(76900007), clave: long } })
        )
      )
      assert.strictEqual(raw.status, 422)
      assert.include(raw.text, "credentials.clave")
      assert.notInclude(raw.text, "kkkkkkkk", "the clave is not echoed")
      assert.deepStrictEqual((yield* client.connections.list()).connections, [])
    }))

  it.effect("a clave holding a lone surrogate (UTF-8 would keep U+FFFD, another clave) or a NUL is InvalidInput (422), on create and on replace", () =>
    Effect.gen(function* () {
      const { client, key } = yield* workspace("paid")
      const send = (method: "POST" | "PATCH", path: string, body: object) =>
        rawRequest(
          HttpClientRequest.make(method)(path).pipe(
            HttpClientRequest.bearerToken(Redacted.value(key)),
            HttpClientRequest.bodyUnsafeJson(body)
          )
        )
      const made = yield* client.connections.create({
        payload: { connector: "sii", credentials: { rut: rut(76900008), clave: Redacted.make(CLAVE) } }
      })
      for (const [clave, message] of [["clave-\ud800", "lone surrogate"], ["clave-\u0000", "NUL character"]] as const) {
        const credentials = { rut: rut(76900008), clave }
        const created = yield* send("POST", "/api/v1/connections", { connector: "sii", credentials })
        assert.strictEqual(created.status, 422, created.text)
        const replaced = yield* send("PATCH", `/api/v1/connections/${made.id}`, { credentials })
        assert.strictEqual(replaced.status, 422, replaced.text)
        for (const answer of [created, replaced]) {
          assert.include(answer.text, `"path":"credentials.clave"`)
          assert.include(answer.text, message)
          assert.notInclude(answer.text, "clave-")
        }
      }
      assert.deepStrictEqual((yield* client.connections.list()).connections.map((c) => c.id), [made.id])
    }))

  it.effect("a bad RUT is InvalidInput (422) with a message that says what a RUT looks like, and does not echo the clave", () =>
    Effect.gen(function* () {
      const { key } = yield* workspace("paid")
      const raw = yield* rawRequest(
        HttpClientRequest.post("/api/v1/connections").pipe(
          HttpClientRequest.bearerToken(Redacted.value(key)),
          HttpClientRequest.bodyUnsafeJson({ connector: "sii", credentials: { rut: "12345678-9", clave: CLAVE } })
        )
      )
      assert.strictEqual(raw.status, 422)
      const body = JSON.parse(raw.text) as {
        readonly _tag: string
        readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
      }
      assert.strictEqual(body._tag, "InvalidInput")
      assert.deepStrictEqual(body.issues.map((i) => i.path), ["credentials.rut"])
      assert.include(
        body.issues[0]?.message ?? "",
        "like 12345678-5 or 12.345.678-5 (a K check digit in either case) whose check digit is right (mod 11)"
      )
      assert.notInclude(raw.text, CLAVE)
    }))

  it.effect("a connection whose audit row cannot be written is not made: 503 AuditUnavailable with Retry-After", () =>
    Effect.gen(function* () {
      const { key } = yield* workspace("paid")
      const sql = yield* SqlClient.SqlClient
      const before = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM connections`
      // the fault: no audit row of a connection's creation can be written (this file's database only)
      const raw = yield* rawRequest(
        HttpClientRequest.post("/api/v1/connections").pipe(
          HttpClientRequest.bearerToken(Redacted.value(key)),
          HttpClientRequest.bodyUnsafeJson({ connector: "sii", credentials: { rut: rut(76600077), clave: CLAVE } })
        )
      ).pipe(withFailingInserts({ name: "refuse_connection_audit", table: "audit_log", when: "NEW.tool_id = 'connections.create'" }))
      assert.strictEqual(raw.status, 503, raw.text)
      assert.match(raw.contentType, /^application\/json/)
      assert.strictEqual((JSON.parse(raw.text) as { readonly _tag: string })._tag, "AuditUnavailable")
      assert.isDefined(raw.retryAfter)
      assert.deepStrictEqual(yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM connections`, before, "nothing half-made")
    }))

  it.effect("another workspace's connection is 404 on every connections endpoint and 403 when a tool uses it", () =>
    Effect.gen(function* () {
      const owner = yield* workspace("paid")
      const stranger = yield* workspace("paid")
      const theirs = yield* owner.client.connections.create({
        payload: { connector: "sii", credentials: { rut: rut(76900005), clave: Redacted.make(CLAVE) } }
      })
      const path = { id: theirs.id }
      for (
        const attempt of [
          stranger.client.connections.get({ path }),
          stranger.client.connections.remove({ path, payload: {} }),
          stranger.client.connections.jobs({ path, urlParams: {} })
        ]
      ) {
        const error = yield* Effect.flip(attempt)
        assert.strictEqual(error._tag, "ConnectionNotFound")
      }
      assert.deepStrictEqual((yield* stranger.client.connections.list()).connections, [])
      for (
        const [tool, input] of [
          ["sii.rcv.consultar", { periodo: "2026-10", perspectiva: "ventas" }],
          ["sii.conexion.sincronizar", { periodo: "2026-10", esperar: 0 }]
        ] as const
      ) {
        const error = yield* Effect.flip(
          stranger.client.tools.execute({ path: { id: tool }, payload: { input }, headers: { "x-connect-connection": theirs.id } })
        )
        assert.strictEqual(error._tag, "Forbidden", tool)
        if (error._tag === "Forbidden") assert.strictEqual(error.reason, "connection_not_in_workspace")
      }
      assert.deepStrictEqual(yield* rowsOf(theirs.id), { documents: 0, coverage: 0, jobs: 0, history: 0, connections: 1 })
      assert.strictEqual((yield* owner.client.connections.get({ path })).state, "pendiente", "still the owner's, untouched")
    }))

  it.effect("a banco connection names its bank; an sii tool refuses it (403 connection_wrong_connector); an account id too long is 422", () =>
    Effect.gen(function* () {
      const { client, key } = yield* workspace("paid")
      const [banco, response] = yield* client.connections.create({
        payload: { connector: "banco", institution: "bci", credentials: { rut: rut(76900006), clave: Redacted.make(CLAVE) } },
        withResponse: true
      })
      assert.strictEqual(response.status, 201)
      assert.deepStrictEqual([banco.connector, banco.institution, banco.state], ["banco", "bci", "pendiente"])
      const error = yield* Effect.flip(client.tools.execute({
        path: { id: "sii.rcv.consultar" },
        payload: { input: { periodo: "2026-10", perspectiva: "ventas" } },
        headers: { "x-connect-connection": banco.id }
      }))
      assert.strictEqual(error._tag, "Forbidden")
      if (error._tag === "Forbidden") assert.strictEqual(error.reason, "connection_wrong_connector")

      const cuenta = `acc_${"x".repeat(5_000)}`
      const long = yield* rawRequest(
        HttpClientRequest.post("/api/v1/tools/banco.movimientos.consultar/execute").pipe(
          HttpClientRequest.bearerToken(Redacted.value(key)),
          HttpClientRequest.setHeader("x-connect-connection", banco.id),
          HttpClientRequest.bodyUnsafeJson({ input: { desde: "2026-03-01", hasta: "2026-03-31", cuenta } })
        )
      )
      assert.strictEqual(long.status, 422)
      assert.include(long.text, "input.cuenta must be at most 64 characters, got 5,004")
      assert.notInclude(long.text, cuenta.slice(0, 100))
    }))
})
