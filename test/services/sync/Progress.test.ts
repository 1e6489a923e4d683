import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Deferred, Effect, FiberId, Layer, Ref, Schema } from "effect"
import { SyncOutput } from "../../../schema/connectors/Sync.ts"
import type { ProgressUpdate } from "../../../schema/Principal.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { overallState } from "../../../services/sync/Sincronizar.ts"
import type { JobRow } from "../../../services/sync/SyncJobs.ts"
import { makeSiiSimulator, SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { SiiUpstream } from "../../../services/upstream/SiiUpstream.ts"
import { allFinished, execute, rut, servicesWithUpstreams, siiConnection, simulators, waitForJobs } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal } from "../../support/TestLayers.ts"

/** Every SII login waits here until the test opens it: the sync stands still at its first step. */
const loginGate = Deferred.unsafeMake<void>(FiberId.none)
const GatedSii = Layer.effectContext(
  Effect.map(
    makeSiiSimulator({ timeScale: 0 }),
    ({ control, upstream }) =>
      Context.make(
        SiiUpstream,
        SiiUpstream.of({ login: (credentials) => Effect.zipRight(Deferred.await(loginGate), upstream.login(credentials)) })
      ).pipe(
        Context.add(SiiSimulator, control)
      )
  )
)
const Live = servicesWithUpstreams(simulators(GatedSii)).pipe(Layer.provideMerge(TestDatabase))
const decodeSync = Schema.decodeUnknown(SyncOutput)

const progressOf = (output: typeof SyncOutput.Type) => output.trabajos.map((j) => [j.state, j.progress])

layer(Live, { excludeTestServices: true })("a sync as the caller sees it", (it) => {
  it.effect("queued: en_cola with the total known; at the login: sincronizando at step login; done: every step", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, rut(76610001))
      const input = { periodo: yield* monthsAgo(1), esperar: 0 }
      const queued = yield* decodeSync((yield* execute(principal, "sii.conexion.sincronizar", input, connection.id)).data)
      assert.strictEqual(queued.estado, "en_cola")
      assert.deepStrictEqual(progressOf(queued), [["en_cola", { done: 0, total: 4 }], ["en_cola", { done: 0, total: 4 }]])

      yield* waitForJobs(
        connection.id,
        (jobs) => jobs.length === 2 && jobs.every((j) => j.state === "sincronizando" && j.progress.step === "login")
      )
      const updates = yield* Ref.make<ReadonlyArray<ProgressUpdate>>([])
      const context = {
        ...callContext(principal, { connectionId: connection.id }),
        onProgress: (u: ProgressUpdate) => Ref.update(updates, (all) => [...all, u])
      }
      const waited = yield* (yield* Executor).call("sii.conexion.sincronizar", { ...input, esperar: 1 }, context)
      const atLogin = yield* decodeSync(waited.data)
      assert.strictEqual(atLogin.estado, "sincronizando")
      assert.deepStrictEqual(progressOf(atLogin), Array(2).fill(["sincronizando", { done: 0, total: 4, step: "login" }]))
      assert.deepStrictEqual(atLogin.conexion.estado, "sincronizando")
      const [first] = yield* Ref.get(updates)
      assert.deepStrictEqual([first?.progress, first?.total], [0, 8], "the first progress notification already knows the total")
      assert.include(first?.message ?? "", "(login)")

      yield* Deferred.succeed(loginGate, undefined)
      const done = yield* waitForJobs(connection.id, allFinished)
      assert.deepStrictEqual(done.map((j) => [j.state, j.progress]), Array(2).fill(["sincronizada", { done: 4, total: 4 }]))
    }))
})

const job = (state: JobRow["state"]) => ({ state })

describe("the top-level estado of a sync", () => {
  it("follows its jobs", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<JobRow["state"]>, JobRow["state"]]> = [
      [["en_cola", "en_cola"], "en_cola"],
      [["sincronizando", "en_cola"], "sincronizando"],
      [["sincronizada", "en_cola"], "sincronizando"],
      [["sincronizada", "sincronizada"], "sincronizada"],
      [["sincronizada", "parcial"], "parcial"],
      [["parcial", "error"], "error"],
      [["error", "sincronizando"], "sincronizando"]
    ]
    for (const [states, expected] of cases) assert.strictEqual(overallState(states.map(job)), expected, states.join(" + "))
  })
})
