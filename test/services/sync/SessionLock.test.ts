import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import type { UpstreamSessionEvent } from "../../../schema/upstream/Session.ts"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { overlappingSessions } from "../../../services/upstream/SessionLog.ts"
import { BancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { allFinished, bancoConnection, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const PERIODOS = ["2026-05", "2026-06", "2026-07", "2026-08"]

describe("two processes syncing the same upstream user", () => {
  it.scopedLive("never hold two sessions at once (one advisory lock per connector + institution + rut)", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      // Two service graphs = two processes: own pool, own worker, own simulator (its own session log).
      // Slow enough (login ≈ 200 ms) that an overlap would show in millisecond timestamps.
      const process = () => Layer.build(simulatedServices({ BREIN_SYNC_CONCURRENCY: "4" }, 0.01).pipe(Layer.provideMerge(databaseFromUrl(url))))
      const a = yield* process()
      const b = yield* process()
      const user = rut(76400001)
      const other = rut(76400002)
      const connections = yield* Effect.gen(function* () {
        const one = yield* issuePrincipal("paid")
        const two = yield* issuePrincipal("paid")
        const owned = [
          { principal: one.principal, connection: yield* siiConnection(one.principal, user) },
          { principal: two.principal, connection: yield* siiConnection(two.principal, user, "otra-clave-456") },
          { principal: two.principal, connection: yield* siiConnection(two.principal, other) }
        ]
        for (const periodo of PERIODOS) {
          for (const { principal, connection } of owned) {
            yield* execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas", esperar: 0 }, connection.id)
          }
        }
        for (const { connection } of owned) yield* waitForJobs(connection.id, allFinished, "60 seconds")
        return owned.map((o) => o.connection.id)
      }).pipe(Effect.provide(a))

      const jobs = yield* Effect.forEach(connections, (id) => waitForJobs(id, allFinished)).pipe(Effect.provide(a))
      assert.deepStrictEqual(
        jobs.flat().map((j) => [j.state, j.attempts]),
        Array(PERIODOS.length * 3).fill(["sincronizada", 1]),
        "waiting for the other process's session spends no attempt"
      )
      const logA = yield* Context.get(a, SiiSimulator).sessions
      const logB = yield* Context.get(b, SiiSimulator).sessions
      const merged = [...logA, ...logB].sort((x, y) => x.at - y.at)
      assert.deepStrictEqual(overlappingSessions(merged), [])
      const starts = (log: ReadonlyArray<UpstreamSessionEvent>, who: string) => log.filter((e) => e.kind === "start" && e.rut === who).length
      assert.isAtMost(starts(merged, user), PERIODOS.length * 2, "at most one session per job of the shared user (due jobs of a connection share one)")
      assert.isAbove(starts(logA, user), 0, "process A ran some of them")
      assert.isAbove(starts(logB, user), 0, "process B ran some of them")
    }), 90_000)

  it.scopedLive("BCI: two processes syncing the same bank user never hold two sessions at once", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      // Login ≈ 270 ms at this scale; each process has its own BancoSimulator (its own session slot and log).
      const process = () => Layer.build(simulatedServices({ BREIN_SYNC_CONCURRENCY: "4" }, 0.003).pipe(Layer.provideMerge(databaseFromUrl(url))))
      const a = yield* process()
      const b = yield* process()
      const user = rut(77300001)
      const periodos = ["2026-07", "2026-08", "2026-09"]
      const connections = yield* Effect.gen(function* () {
        const one = yield* issuePrincipal("paid")
        const two = yield* issuePrincipal("paid")
        const owned = [
          { principal: one.principal, connection: yield* bancoConnection(one.principal, user) },
          { principal: two.principal, connection: yield* bancoConnection(two.principal, user) }
        ]
        for (const periodo of periodos) {
          for (const { principal, connection } of owned) {
            yield* execute(principal, "banco.conexion.sincronizar", { periodo, esperar: 0 }, connection.id)
          }
        }
        return owned.map((o) => o.connection.id)
      }).pipe(Effect.provide(a))
      const jobs = yield* Effect.forEach(connections, (id) => waitForJobs(id, allFinished, "60 seconds")).pipe(Effect.provide(a))
      assert.deepStrictEqual(jobs.flat().map((j) => [j.state, j.attempts]), Array(periodos.length * 2).fill(["sincronizada", 1]))
      const logA = yield* Context.get(a, BancoSimulator).sessions
      const logB = yield* Context.get(b, BancoSimulator).sessions
      const merged = [...logA, ...logB].sort((x, y) => x.at - y.at)
      assert.deepStrictEqual(overlappingSessions(merged), [])
      assert.deepStrictEqual(merged.filter((e) => e.kind === "rejected"), [], "BCI never refused a login: nobody tried while a session was open")
      assert.isAtMost(merged.filter((e) => e.kind === "start").length, periodos.length * 2, "at most one session per job (due jobs of a connection share one)")
      assert.isAbove(logA.filter((e) => e.kind === "start").length, 0, "process A ran some of them")
      assert.isAbove(logB.filter((e) => e.kind === "start").length, 0, "process B ran some of them")
    }), 90_000)
})
