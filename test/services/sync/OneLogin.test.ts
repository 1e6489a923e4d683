import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { BancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { allFinished, bancoConnection, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { freshDatabase, TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const Live = simulatedServices().pipe(Layer.provideMerge(TestDatabase))
const decodeSync = Schema.decodeUnknown(SyncOutput)

const siiSessions = (user: string) =>
  Effect.map(Effect.flatMap(SiiSimulator, (s) => s.sessions), (events) => events.filter((e) => e.rut === user).map((e) => e.kind))

layer(Live, { excludeTestServices: true })("one upstream session per connection", (it) => {
  it.effect("a sync of both SII perspectives logs in once and reads both under that session", () =>
    Effect.gen(function* () {
      const user = rut(76600001)
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, user)
      const periodo = yield* monthsAgo(1)
      const response = yield* execute(principal, "sii.conexion.sincronizar", { periodo, esperar: 20 }, connection.id)
      const output = yield* decodeSync(response.data)
      assert.strictEqual(output.estado, "sincronizada")
      assert.deepStrictEqual(output.trabajos.map((j) => [j.scope["perspectiva"], j.state, j.attempts]), [["ventas", "sincronizada", 1], [
        "compras",
        "sincronizada",
        1
      ]])
      assert.deepStrictEqual(yield* siiSessions(user), ["start", "end"], "one login, one logout")
      const stored = yield* (yield* Connections).get(principal, connection.id)
      assert.deepStrictEqual(stored.coverage.map((c) => c.scope["perspectiva"]), ["compras", "ventas"])
    }))

  it.effect("after credenciales_invalidas the connection's other jobs fail without another login, now and on the next sync", () =>
    Effect.gen(function* () {
      const user = rut(76600002)
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, user, "invalida")
      const periodo = yield* monthsAgo(1)
      const first = yield* decodeSync((yield* execute(principal, "sii.conexion.sincronizar", { periodo, esperar: 20 }, connection.id)).data)
      assert.deepStrictEqual(first.trabajos.map((j) => [j.state, j.attempts, j.error?.reason]), [
        ["error", 1, "credenciales_invalidas"],
        ["error", 1, "credenciales_invalidas"]
      ])
      assert.deepStrictEqual(yield* siiSessions(user), ["rejected"], "one login attempt for both perspectives")

      const again = yield* execute(principal, "sii.conexion.sincronizar", { periodo: yield* monthsAgo(2), esperar: 20 }, connection.id)
      const second = yield* decodeSync(again.data)
      assert.strictEqual(second.estado, "error")
      assert.deepStrictEqual(second.trabajos.map((j) => j.error?.reason), ["credenciales_invalidas", "credenciales_invalidas"])
      assert.include(second.trabajos[0]?.error?.message ?? "", `PATCH /api/v1/connections/${connection.id}`)
      assert.deepStrictEqual(yield* siiSessions(user), ["rejected"], "no login was tried for the later sync")
      assert.deepStrictEqual(second.conexion, { id: connection.id, estado: "error", motivo: "credenciales_invalidas" })
      assert.include(again.hint ?? "", "PATCH /api/v1/connections/")
      const stored = yield* (yield* Connections).get(principal, connection.id)
      assert.include(stored.hint ?? "", `PATCH /api/v1/connections/${connection.id}`)
    }))
})

describe("jobs of one bank connection queued together", () => {
  it.scopedLive("several periods run under one login", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const user = rut(77600001)
      const periodos = yield* Effect.all([monthsAgo(3), monthsAgo(2), monthsAgo(1)])
      // This process only queues (its worker is off); the next one finds the three jobs due at once.
      const queueing = yield* Layer.build(simulatedServices({ BREIN_SYNC_WORKER: "false" }).pipe(Layer.provideMerge(databaseFromUrl(url))))
      const connectionId = yield* Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        const connection = yield* bancoConnection(principal, user)
        for (const periodo of periodos) yield* execute(principal, "banco.conexion.sincronizar", { periodo, esperar: 0 }, connection.id)
        return connection.id
      }).pipe(Effect.provide(queueing))

      const working = yield* Layer.build(simulatedServices().pipe(Layer.provideMerge(databaseFromUrl(url))))
      const jobs = yield* waitForJobs(connectionId, allFinished).pipe(Effect.provide(working))
      assert.deepStrictEqual(jobs.map((j) => [j.state, j.attempts]), Array(3).fill(["sincronizada", 1]))
      const sessions = yield* Context.get(working, BancoSimulator).sessions
      assert.deepStrictEqual(sessions.filter((e) => e.rut === user).map((e) => e.kind), ["start", "end"])
    }), 60_000)
})
