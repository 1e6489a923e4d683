import { assert, layer } from "@effect/vitest"
import { Context, Deferred, Effect, FiberId, Layer, Ref } from "effect"
import { makeSiiSimulator, SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { SiiUpstream } from "../../../services/upstream/SiiUpstream.ts"
import { changes } from "../../../src/mcp/SyncLog.ts"
import {
  allFinished,
  execute,
  jobsOf,
  rut,
  servicesWithUpstreams,
  siiConnection,
  simulators,
  waitForJobs
} from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

/** The first SII login goes through; every later one (the re-login) waits here until the test opens it. */
const reloginGate = Deferred.unsafeMake<void>(FiberId.none)
const logins = Ref.unsafeMake(0)
const GatedRelogin = Layer.effectContext(
  Effect.map(makeSiiSimulator({ timeScale: 0 }), ({ control, upstream }) =>
    Context.make(
      SiiUpstream,
      SiiUpstream.of({
        login: (credentials) =>
          Ref.getAndUpdate(logins, (n) => n + 1).pipe(
            Effect.flatMap((before) => (before === 0 ? Effect.void : Deferred.await(reloginGate))),
            Effect.zipRight(upstream.login(credentials))
          )
      })
    ).pipe(Context.add(SiiSimulator, control)))
)
const Live = servicesWithUpstreams(simulators(GatedRelogin)).pipe(Layer.provideMerge(TestDatabase))

layer(Live, { excludeTestServices: true })("a session that expires mid-sync", (it) => {
  it.effect("the job's step goes back to login while brein logs in again, so whoever follows it is told; then it finishes", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("paid")
      const connection = yield* siiConnection(principal, rut(76620001), "expira")
      yield* execute(
        principal,
        "sii.conexion.sincronizar",
        { periodo: yield* monthsAgo(1), perspectiva: "ventas", esperar: 0 },
        connection.id
      )

      // The second login is the held one: once it has been asked for, the job must already say so.
      yield* waitUntil(Ref.get(logins), (n) => n === 2, { what: "the re-login" })
      const relogging = yield* jobsOf(connection.id)
      assert.deepStrictEqual(relogging.map((j) => [j.progress.step, j.progress.done >= 1]), [["login", true]])
      const reading = relogging.map((j) => ({ ...j, progress: { ...j.progress, step: "resumen" } }))
      const told = changes(new Map(reading.map((j) => [j.id, j])), relogging)
      assert.deepInclude(
        told.map((l) => l.message),
        `sii ${relogging[0]?.scopeKey.replaceAll("&", " ")}: the session expired; logging in again`
      )

      yield* Deferred.succeed(reloginGate, undefined)
      const done = yield* waitForJobs(connection.id, allFinished)
      assert.deepStrictEqual(done.map((j) => [j.state, j.attempts]), [["sincronizada", 1]])
    }))
})
