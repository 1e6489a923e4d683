import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Ref, Schedule } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import type { UpstreamSessionEvent } from "../../../schema/upstream/Session.ts"
import { BancoSimulator, makeBancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { type BancoSession, BancoUpstream } from "../../../services/upstream/BancoUpstream.ts"
import { overlappingSessions } from "../../../services/upstream/SessionLog.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { allFinished, bancoConnection, execute, rut, servicesWithUpstreams, waitForJobs } from "../../support/Connected.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { terminateBackends } from "../../support/Faults.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

interface Call {
  readonly sessionId: string
  readonly at: number
}

// The bank simulator, with every request a session sends recorded with its time (logins and logouts are in its session log).
const recordingBanco = (timeScale: number, calls: Ref.Ref<ReadonlyArray<Call>>) =>
  Layer.effectContext(Effect.gen(function* () {
    const { control, upstream } = yield* makeBancoSimulator({ timeScale })
    const record = (sessionId: string) =>
      Effect.flatMap(Effect.clockWith((c) => c.currentTimeMillis), (at) => Ref.update(calls, (all) => [...all, { sessionId, at }]))
    const wrapped = BancoUpstream.of({
      login: (credentials) =>
        Effect.map(upstream.login(credentials), (session): BancoSession => ({
          ...session,
          cuentas: () => Effect.zipRight(record(session.id), session.cuentas()),
          movimientos: (a, d, h) => Effect.zipRight(record(session.id), session.movimientos(a, d, h))
        }))
    })
    return Context.make(BancoUpstream, wrapped).pipe(Context.add(BancoSimulator, control))
  }))

const SETTINGS = { BREIN_SYNC_CONCURRENCY: "4", BREIN_SESSION_LEASE_SECONDS: "1", BREIN_SESSION_LEASE_RENEW_SECONDS: "0.2" }

const twoProcesses = (timeScale: number) =>
  Effect.gen(function* () {
    const url = yield* freshDatabase
    const process = (calls: Ref.Ref<ReadonlyArray<Call>>) =>
      Layer.build(
        servicesWithUpstreams(Layer.merge(recordingBanco(timeScale, calls), SiiSimulator.layerWith({ timeScale: 0 })), SETTINGS).pipe(
          Layer.provideMerge(databaseFromUrl(url))
        )
      )
    const callsA = yield* Ref.make<ReadonlyArray<Call>>([])
    const callsB = yield* Ref.make<ReadonlyArray<Call>>([])
    return { a: yield* process(callsA), b: yield* process(callsB), callsA, callsB }
  })

type Process = Effect.Effect.Success<ReturnType<typeof twoProcesses>>["a"]

const sessionsOf = (p: Process) => Context.get(p, BancoSimulator).sessions
// Each simulator numbers its sessions from 1: name them by process before comparing.
const named = (process: string) => <E extends { readonly sessionId: string }>(events: ReadonlyArray<E>) =>
  events.map((e) => ({ ...e, sessionId: `${process}:${e.sessionId}` }))
const merged = (a: Process, b: Process) =>
  Effect.map(
    Effect.all([Effect.map(sessionsOf(a), named("a")), Effect.map(sessionsOf(b), named("b"))]),
    ([x, y]) => [...x, ...y].sort((l, r) => l.at - r.at)
  )
const openSessions = (events: ReadonlyArray<UpstreamSessionEvent>) =>
  events.filter((e) => e.kind === "start" && !events.some((o) => o.kind === "end" && o.sessionId === e.sessionId))

/** Two connections (two workspaces) on the same BCI user, each asked to sync a few periods. */
const sameUserTwice = (a: Process, user: string) =>
  Effect.gen(function* () {
    const one = yield* issuePrincipal("paid")
    const two = yield* issuePrincipal("paid")
    const owned = [
      { principal: one.principal, connection: yield* bancoConnection(one.principal, user) },
      { principal: two.principal, connection: yield* bancoConnection(two.principal, user) }
    ]
    for (const periodo of ["2026-07", "2026-08", "2026-09"]) {
      for (const { principal, connection } of owned) {
        yield* execute(principal, "banco.conexion.sincronizar", { periodo, esperar: 0 }, connection.id)
      }
    }
    return owned
  }).pipe(Effect.provide(a))

describe("the BCI session lease", () => {
  it.scopedLive(
    "survives its holder's database connections being terminated mid-session: never two sessions of one user",
    () =>
      Effect.gen(function* () {
        const { a, b } = yield* twoProcesses(0.01)
        const owned = yield* sameUserTwice(a, rut(77310001))
        const sql = Context.get(a, SqlClient.SqlClient)
        let terminated = 0
        let killedWhileOpen = 0
        // Kill every backend of both processes (all but this statement's), over and over, while sessions run.
        while (killedWhileOpen < 3) {
          const events = yield* waitUntil(merged(a, b), (e) => openSessions(e).length > 0, { what: "a bank session open" })
          const killed = yield* terminateBackends(sql).pipe(
            // This test's own connection comes from a pool whose connections it just killed.
            Effect.retry(Schedule.recurs(5)),
            Effect.orDie
          )
          terminated += killed
          if (openSessions(events).length > 0 && killed > 0) killedWhileOpen++
          yield* waitUntil(
            merged(a, b),
            (e) => !openSessions(e).some((s) => openSessions(events).some((o) => o.sessionId === s.sessionId)),
            {
              what: "the killed-under session ending",
              tries: 2000
            }
          )
        }
        assert.isAbove(terminated, 0, "backends were terminated while a session was open")
        yield* Effect.forEach(owned, ({ connection }) => waitForJobs(connection.id, allFinished, "60 seconds")).pipe(Effect.provide(a))
        const events = yield* merged(a, b)
        assert.deepStrictEqual(overlappingSessions(events), [], "no two sessions of the user were ever open at once")
        assert.deepStrictEqual(
          events.filter((e) => e.kind === "rejected"),
          [],
          "BCI never refused a login for a second session"
        )
      }),
    120_000
  )

  it.scopedLive(
    "a holder that cannot renew stops before the lease can pass to anyone, and sends nothing after",
    () =>
      Effect.gen(function* () {
        const { a, b, callsA, callsB } = yield* twoProcesses(0.02)
        const owned = yield* sameUserTwice(a, rut(77310002))
        const sql = Context.get(a, SqlClient.SqlClient)
        const [first] = yield* waitUntil(merged(a, b), (e) => openSessions(e).length > 0, { what: "a bank session open" }).pipe(
          Effect.map(openSessions)
        )
        assert.isDefined(first)
        // The holder's renewals cannot reach the lease row (as if its database were unreachable) until its session has stopped.
        const cut = yield* sql.withTransaction(Effect.gen(function* () {
          const locked = yield* sql`SELECT key FROM session_leases FOR UPDATE`.pipe(Effect.orDie)
          assert.lengthOf(locked, 1, "the session's lease row is held")
          const events = yield* waitUntil(merged(a, b), (e) => e.some((x) => x.kind === "end" && x.sessionId === first?.sessionId), {
            what: "the holder stopping its session",
            tries: 400
          })
          const jobs = yield* Effect.forEach(owned, ({ connection }) => waitForJobs(connection.id, () => true)).pipe(Effect.provide(a))
          return { events, unfinished: jobs.flat().filter((j) => j.state !== "sincronizada").length }
        })).pipe(Effect.orDie)
        assert.isAbove(cut.unfinished, 0, "the session was cut short: its jobs had not all been synced")
        yield* Effect.forEach(owned, ({ connection }) => waitForJobs(connection.id, allFinished, "60 seconds")).pipe(Effect.provide(a))
        const events = yield* merged(a, b)
        const ended = events.find((e) => e.kind === "end" && e.sessionId === first?.sessionId)
        assert.isDefined(ended)
        const calls = [...named("a")(yield* Ref.get(callsA)), ...named("b")(yield* Ref.get(callsB))]
        assert.deepStrictEqual(
          calls.filter((c) => c.sessionId === first?.sessionId && c.at > (ended?.at ?? 0)),
          [],
          "no request after it stopped"
        )
        assert.deepStrictEqual(overlappingSessions(events), [], "no two sessions of the user were ever open at once")
        const jobs = yield* Effect.forEach(owned, ({ connection }) => waitForJobs(connection.id, allFinished)).pipe(Effect.provide(a))
        assert.deepStrictEqual([...new Set(jobs.flat().map((j) => j.state))], ["sincronizada"], "the cut jobs were retried and completed")
      }),
    120_000
  )
})
