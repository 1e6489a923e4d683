import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import { databaseFromUrl } from "../../../layers/Database.ts"
import { allFinished, bancoConnection, execute, rut, siiConnection, simulatedServices, waitForJobs } from "../../support/Connected.ts"
import { monthsAgo } from "../../support/Periods.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"

const CLAVES = { retry: "no_disponible", relogin: "expira" } as const

/** Every INFO-and-above line of a service graph, kept for the test to search. */
const capture = () => {
  const lines: Array<string> = []
  const layer = Layer.merge(
    Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void lines.push(line))),
    Logger.minimumLogLevel(LogLevel.Info)
  )
  return { lines, layer }
}

const processOn = (
  url: Parameters<typeof databaseFromUrl>[0],
  settings: Readonly<Record<string, string>>,
  timeScale: number,
  logs: Layer.Layer<never>
) => simulatedServices(settings, timeScale).pipe(Layer.provideMerge(databaseFromUrl(url)), Layer.provide(logs))

/** The one line with this message about this job, or a failure that shows what was logged. */
const lineFor = (lines: ReadonlyArray<string>, message: string, jobId: string) => {
  const found = lines.filter((l) => l.includes(`message="${message}`) && l.includes(`jobId=${jobId}`))
  assert.strictEqual(found.length, 1, `${message} for ${jobId} in:\n${lines.join("\n")}`)
  return found[0] ?? ""
}

describe("INFO logs of a sync", () => {
  it.scopedLive("a retry and a re-login: one line each, with the connection, the job and the attempt", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const logs = capture()
      const here = yield* Layer.build(processOn(url, { BREIN_SYNC_MAX_ATTEMPTS: "2" }, 0, logs.layer))
      yield* Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        const periodo = yield* monthsAgo(1)
        const retried = yield* bancoConnection(principal, rut(77650001), CLAVES.retry)
        const relogged = yield* siiConnection(principal, rut(76650001), CLAVES.relogin)
        yield* execute(principal, "banco.conexion.sincronizar", { periodo, esperar: 0 }, retried.id)
        yield* execute(principal, "sii.conexion.sincronizar", { periodo, perspectiva: "ventas", esperar: 0 }, relogged.id)
        const [retriedJob] = yield* waitForJobs(retried.id, allFinished)
        const [reloggedJob] = yield* waitForJobs(relogged.id, allFinished)

        const retry = lineFor(logs.lines, "sync job will be retried", retriedJob?.id ?? "")
        for (const part of ["level=INFO", `connectionId=${retried.id}`, "attempt=1", "reason=upstream_no_disponible", "retryInMs="]) {
          assert.include(retry, part)
        }
        const relogin = lineFor(logs.lines, "SII session expired: logging in again", reloggedJob?.id ?? "")
        for (const part of ["level=INFO", `connectionId=${relogged.id}`, "attempt=1"]) assert.include(relogin, part)
      }).pipe(Effect.provide(here))
    }), 30_000)

  it.scopedLive("a lease take-over: one line on the worker that takes the job, with its new attempt", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const first = yield* Scope.make()
      const quiet = capture()
      const slow = yield* Layer.buildWithScope(processOn(url, { BREIN_SYNC_LEASE_SECONDS: "1" }, 0.05, quiet.layer), first)
      const { connectionId, jobId } = yield* Effect.gen(function* () {
        const { principal } = yield* issuePrincipal("paid")
        const connection = yield* siiConnection(principal, rut(76650002))
        yield* execute(
          principal,
          "sii.conexion.sincronizar",
          { periodo: yield* monthsAgo(1), perspectiva: "compras", esperar: 0 },
          connection.id
        )
        const [job] = yield* waitForJobs(connection.id, (jobs) => jobs[0]?.state === "sincronizando" && jobs[0].progress.done >= 1)
        return { connectionId: connection.id, jobId: job?.id ?? "" }
      }).pipe(Effect.provide(slow))
      yield* Scope.close(first, Exit.void)

      const logs = capture()
      const restarted = yield* Layer.build(processOn(url, {}, 0, logs.layer))
      yield* waitForJobs(connectionId, allFinished).pipe(Effect.provide(restarted))
      const line = lineFor(logs.lines, "sync job taken over", jobId)
      for (const part of ["level=INFO", `connectionId=${connectionId}`, "attempt=2"]) assert.include(line, part)
    }), 60_000)
})
