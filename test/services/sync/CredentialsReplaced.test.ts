import { assert, layer } from "@effect/vitest"
import { Context, Deferred, Effect, HashMap, Layer, Option, Redacted, Ref, Schema } from "effect"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import type { ConnectionId } from "../../../schema/Ids.ts"
import type { Principal } from "../../../schema/Principal.ts"
import type { Rut } from "../../../schema/upstream/Rut.ts"
import { ConnectionCredentials } from "../../../services/connections/ConnectionCredentials.ts"
import { Connections } from "../../../services/connections/Connections.ts"
import { BancoSimulator, makeBancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { BancoUpstream } from "../../../services/upstream/BancoUpstream.ts"
import { IndicadoresSimulator } from "../../../services/upstream/IndicadoresSource.ts"
import { makeSiiSimulator, SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { type SiiSession, SiiUpstream } from "../../../services/upstream/SiiUpstream.ts"
import {
  allFinished,
  bancoConnection,
  countRows,
  execute,
  rut,
  servicesWithUpstreams,
  siiConnection,
  waitForJobs
} from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

/** A held upstream step: `reached` once a sync stands at it, which then waits until the test `opens` it. */
interface Gate {
  readonly reached: Deferred.Deferred<void>
  readonly opens: Deferred.Deferred<void>
  /** How many times the step goes through before it is held. */
  readonly skip: number
}

const gates = Ref.unsafeMake(HashMap.empty<string, Gate>())

/** Holds the upstream step named `step` (e.g. `login 76…-k`) once, after letting it through `skip` times. */
const hold = (step: string, skip = 0) =>
  Effect.gen(function* () {
    const gate = { reached: yield* Deferred.make<void>(), opens: yield* Deferred.make<void>(), skip }
    yield* Ref.update(gates, HashMap.set(step, gate))
    return gate
  })

const passing = (step: string) =>
  Ref.modify(gates, (all) =>
    Option.match(HashMap.get(all, step), {
      onNone: () => [Option.none<Gate>(), all] as const,
      onSome: (gate) =>
        gate.skip > 0
          ? [Option.none<Gate>(), HashMap.set(all, step, { ...gate, skip: gate.skip - 1 })] as const
          : [Option.some(gate), HashMap.remove(all, step)] as const
    })).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.void,
        onSome: (gate) => Effect.zipRight(Deferred.succeed(gate.reached, undefined), Deferred.await(gate.opens))
      }))
    )

const GatedSii = Layer.effectContext(
  Effect.map(makeSiiSimulator({ timeScale: 0 }), ({ control, upstream }) =>
    Context.make(
      SiiUpstream,
      SiiUpstream.of({
        login: (credentials) =>
          Effect.zipRight(
            passing(`login ${credentials.rut}`),
            Effect.map(upstream.login(credentials), (session): SiiSession => ({
              ...session,
              resumen: (periodo, perspectiva) =>
                Effect.zipRight(passing(`resumen ${credentials.rut}`), session.resumen(periodo, perspectiva))
            }))
          )
      })
    ).pipe(Context.add(SiiSimulator, control)))
)
const GatedBanco = Layer.effectContext(
  Effect.map(makeBancoSimulator({ timeScale: 0 }), ({ control, upstream }) =>
    Context.make(
      BancoUpstream,
      BancoUpstream.of({ login: (credentials) => Effect.zipRight(passing(`login ${credentials.rut}`), upstream.login(credentials)) })
    ).pipe(Context.add(BancoSimulator, control)))
)

const Live = servicesWithUpstreams(Layer.mergeAll(GatedSii, GatedBanco, IndicadoresSimulator.layerWith({ timeScale: 0 }))).pipe(
  Layer.provideMerge(TestDatabase)
)
const decodeSync = Schema.decodeUnknown(SyncOutput)

const replaceClave = (principal: Principal, id: ConnectionId, user: Rut, clave: string) =>
  Effect.flatMap(
    ConnectionCredentials,
    (credentials) => credentials.replace(principal, id, { credentials: { rut: user, clave: Redacted.make(clave) } }, "http")
  )

const stateOf = (principal: Principal, id: ConnectionId) =>
  Effect.map(Effect.flatMap(Connections, (c) => c.get(principal, id)), (view) => [view.state, view.reason])

const sync = (principal: Principal, connector: "sii" | "banco", id: ConnectionId, input: Record<string, unknown>) =>
  Effect.flatMap(execute(principal, `${connector}.conexion.sincronizar`, input, id), (response) => decodeSync(response.data))

layer(Live, { excludeTestServices: true })("credentials replaced while a sync runs", (it) => {
  for (const [i, connector] of (["sii", "banco"] as const).entries()) {
    it.effect(`${connector}: a job that logged in with the old credentials keeps its data and leaves the connection pendiente`, () =>
      Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        const user = rut(76910001 + i)
        const connection = connector === "sii" ? yield* siiConnection(principal, user) : yield* bancoConnection(principal, user)
        const login = yield* hold(`login ${user}`)
        const periodo = yield* monthsAgo(1)
        yield* sync(principal, connector, connection.id, { periodo, esperar: 0 })
        yield* Deferred.await(login.reached)

        const replaced = yield* replaceClave(principal, connection.id, user, "invalida")
        assert.deepStrictEqual([replaced.state, replaced.reason], ["pendiente", null])
        yield* Deferred.succeed(login.opens, undefined)
        const ended = yield* waitForJobs(connection.id, allFinished)
        assert.isTrue(ended.every((j) => j.state === "sincronizada"), "the old credentials' sync ran to its end")
        assert.isAbove(yield* countRows("sync_coverage", connection.id), 0, "what it read is kept")
        assert.deepStrictEqual(yield* stateOf(principal, connection.id), ["pendiente", null], "the new credentials are untried")

        const next = yield* sync(principal, connector, connection.id, { periodo, esperar: 20 })
        assert.strictEqual(next.estado, "error")
        assert.deepStrictEqual(next.trabajos.map((j) => j.error?.reason), next.trabajos.map(() => "credenciales_invalidas"))
        assert.deepStrictEqual(yield* stateOf(principal, connection.id), ["error", "credenciales_invalidas"])
      }))
  }

  it.effect("replaced between two jobs of one login: the job that ends after it leaves the connection pendiente", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const user = rut(76910011)
      const connection = yield* siiConnection(principal, user)
      const second = yield* hold(`resumen ${user}`, 1)
      yield* sync(principal, "sii", connection.id, { periodo: yield* monthsAgo(1), esperar: 0 })
      yield* Deferred.await(second.reached)
      yield* waitForJobs(connection.id, (jobs) => jobs.some((j) => j.state === "sincronizada"))
      assert.deepStrictEqual(yield* stateOf(principal, connection.id), ["sincronizando", null])

      yield* replaceClave(principal, connection.id, user, "invalida")
      yield* Deferred.succeed(second.opens, undefined)
      const ended = yield* waitForJobs(connection.id, allFinished)
      assert.deepStrictEqual(ended.map((j) => j.state), ["sincronizada", "sincronizada"])
      assert.deepStrictEqual(yield* stateOf(principal, connection.id), ["pendiente", null])
    }))

  it.effect("old credentials refused after new ones were given: the connection stays pendiente and the next sync logs in with them", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const user = rut(76910021)
      const connection = yield* siiConnection(principal, user, "invalida")
      const login = yield* hold(`login ${user}`)
      const periodo = yield* monthsAgo(1)
      yield* sync(principal, "sii", connection.id, { periodo, perspectiva: "ventas", esperar: 0 })
      yield* Deferred.await(login.reached)

      yield* replaceClave(principal, connection.id, user, "clave-nueva-123")
      yield* Deferred.succeed(login.opens, undefined)
      const ended = yield* waitForJobs(connection.id, allFinished)
      assert.deepStrictEqual(ended.map((j) => [j.state, j.errorReason]), [["error", "credenciales_invalidas"]])
      assert.deepStrictEqual(yield* stateOf(principal, connection.id), ["pendiente", null])

      const next = yield* sync(principal, "sii", connection.id, { periodo, perspectiva: "ventas", esperar: 20 })
      assert.strictEqual(next.estado, "sincronizada")
      assert.deepStrictEqual(yield* stateOf(principal, connection.id), ["sincronizada", null])
      const sessions = (yield* (yield* SiiSimulator).sessions).filter((e) => e.rut === user).map((e) => e.kind)
      assert.deepStrictEqual(sessions, ["rejected", "start", "end"], "the old clave refused, then the new one logged in")
    }))
})
