import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import type { UpstreamSessionEvent } from "../../../schema/upstream/Session.ts"
import { BancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { overlappingSessions } from "../../../services/upstream/SessionLog.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { allFinished, bancoConnection, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const PERIODOS = ["2026-05", "2026-06", "2026-07", "2026-08"]

describe("two processes syncing the same upstream user", () => {
  it.scopedLive("never hold two sessions at once (one session lease per connector + institution + rut)", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      // Two service graphs = two processes: own pool, own worker, own simulator (its own session log).
      // Slow enough (login ≈ 200 ms) that an overlap would show in millisecond timestamps.
      const process = () =>
        Layer.build(simulatedServices({ BREIN_SYNC_CONCURRENCY: "4" }, 0.01).pipe(Layer.provideMerge(databaseFromUrl(url))))
      const a = yield* process()
      const b = yield* process()
      const user = rut(76400001)
      const other = rut(76400002)
      const owned = yield* Effect.gen(function* () {
        const one = yield* issuePrincipal("paid")
        const two = yield* issuePrincipal("paid")
        return [
          { principal: one.principal, connection: yield* siiConnection(one.principal, user) },
          { principal: two.principal, connection: yield* siiConnection(two.principal, user, "otra-clave-456") },
          { principal: two.principal, connection: yield* siiConnection(two.principal, other) }
        ]
      }).pipe(Effect.provide(a))
      const round = Effect.gen(function* () {
        for (const periodo of PERIODOS) {
          for (const { principal, connection } of owned) {
            yield* execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas", esperar: 0 }, connection.id)
          }
        }
        return yield* Effect.forEach(owned, ({ connection }) => waitForJobs(connection.id, allFinished, "60 seconds"))
      }).pipe(Effect.provide(a))
      const starts = (log: ReadonlyArray<UpstreamSessionEvent>, who: string) =>
        log.filter((e) => e.kind === "start" && e.rut === who).length
      // Which process claims a connection's due jobs is up to the race between their workers: sync again
      // (a bounded number of rounds) until both have run a session of the shared user, so the check is never vacuous.
      const bothRan = Effect.map(
        Effect.all([Context.get(a, SiiSimulator).sessions, Context.get(b, SiiSimulator).sessions]),
        ([logA, logB]) => starts(logA, user) > 0 && starts(logB, user) > 0
      )
      let rounds = 0
      let jobs: ReadonlyArray<ReadonlyArray<{ readonly state: string; readonly attempts: number }>> = []
      do {
        jobs = yield* round
        rounds++
      } while (rounds < 5 && !(yield* bothRan))
      assert.deepStrictEqual(
        jobs.flat().map((j) => [j.state, j.attempts]),
        Array(PERIODOS.length * owned.length * rounds).fill(["sincronizada", 1]),
        "waiting for the other process's session spends no attempt"
      )
      const logA = yield* Context.get(a, SiiSimulator).sessions
      const logB = yield* Context.get(b, SiiSimulator).sessions
      const merged = [...logA, ...logB].sort((x, y) => x.at - y.at)
      assert.deepStrictEqual(overlappingSessions(merged), [])
      assert.isAtMost(
        starts(merged, user),
        PERIODOS.length * 2 * rounds,
        "at most one session per job of the shared user (due jobs of a connection share one)"
      )
      assert.isAbove(starts(logA, user), 0, "process A ran some of them")
      assert.isAbove(starts(logB, user), 0, "process B ran some of them")
    }), 90_000)

  it.scopedLive("BCI: two processes syncing the same bank user never hold two sessions at once", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      // Login ≈ 270 ms at this scale; each process has its own BancoSimulator (its own session slot and log).
      const process = () =>
        Layer.build(simulatedServices({ BREIN_SYNC_CONCURRENCY: "4" }, 0.003).pipe(Layer.provideMerge(databaseFromUrl(url))))
      const a = yield* process()
      const b = yield* process()
      const user = rut(77300001)
      const periodos = ["2026-07", "2026-08", "2026-09"]
      const owned = yield* Effect.gen(function* () {
        const one = yield* issuePrincipal("paid")
        const two = yield* issuePrincipal("paid")
        return [
          { principal: one.principal, connection: yield* bancoConnection(one.principal, user) },
          { principal: two.principal, connection: yield* bancoConnection(two.principal, user) }
        ]
      }).pipe(Effect.provide(a))
      const round = Effect.gen(function* () {
        for (const periodo of periodos) {
          for (const { principal, connection } of owned) {
            yield* execute(principal, "banco.conexion.sincronizar", { periodo, esperar: 0 }, connection.id)
          }
        }
        return yield* Effect.forEach(owned, ({ connection }) => waitForJobs(connection.id, allFinished, "60 seconds"))
      }).pipe(Effect.provide(a))
      // Which process claims a connection's due jobs is up to the race between their workers: sync again
      // (a bounded number of rounds) until both have run a session, so the check below is never vacuous.
      const started = (log: ReadonlyArray<UpstreamSessionEvent>) => log.filter((e) => e.kind === "start").length
      const bothRan = Effect.map(
        Effect.all([Context.get(a, BancoSimulator).sessions, Context.get(b, BancoSimulator).sessions]),
        ([logA, logB]) => started(logA) > 0 && started(logB) > 0
      )
      let rounds = 0
      let jobs: ReadonlyArray<ReadonlyArray<{ readonly state: string; readonly attempts: number }>> = []
      do {
        jobs = yield* round
        rounds++
      } while (rounds < 5 && !(yield* bothRan))
      const jobsRun = periodos.length * owned.length * rounds
      assert.deepStrictEqual(jobs.flat().map((j) => [j.state, j.attempts]), Array(jobsRun).fill(["sincronizada", 1]))
      const logA = yield* Context.get(a, BancoSimulator).sessions
      const logB = yield* Context.get(b, BancoSimulator).sessions
      const merged = [...logA, ...logB].sort((x, y) => x.at - y.at)
      assert.deepStrictEqual(overlappingSessions(merged), [])
      assert.deepStrictEqual(
        merged.filter((e) => e.kind === "rejected"),
        [],
        "BCI never refused a login: nobody tried while a session was open"
      )
      assert.isAtMost(started(merged), jobsRun, "at most one session per job (due jobs of a connection share one)")
      assert.isAbove(started(logA), 0, "process A ran some of them")
      assert.isAbove(started(logB), 0, "process B ran some of them")
    }), 90_000)
})
