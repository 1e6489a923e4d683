import { SqlClient } from "@effect/sql"
import { Cause, Duration, Effect, Exit, Fiber, Option, Queue, Schedule } from "effect"
import type { UpstreamError } from "../../schema/upstream/Errors.ts"
import { Connections, sessionKey } from "../connections/Connections.ts"
import { Persist } from "../pipeline/Persist.ts"
import { Channel, Signals } from "../Signals.ts"
import { ConnectorSyncs, type SyncResult } from "./ConnectorSync.ts"
import { SessionLock } from "./SessionLock.ts"
import { type JobRow, SyncJobs } from "./SyncJobs.ts"
import { SyncSettings } from "./SyncSettings.ts"

const TERMINAL_REASONS = new Set(["credenciales_invalidas", "mfa_requerido", "mfa_timeout"])

class SessionBusy {
  readonly _tag = "SessionBusy"
}

/** Runs due sync jobs: every server process runs one; jobs are claimed with SKIP LOCKED and a lease. */
export class SyncWorker extends Effect.Service<SyncWorker>()("brein/sync/SyncWorker", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* SyncJobs
    const connections = yield* Connections
    const syncs = yield* ConnectorSyncs
    const lock = yield* SessionLock
    const settings = yield* SyncSettings
    const wake = yield* Queue.sliding<void>(1)
    const signals = yield* Signals

    const refreshConnection = (connectionId: string) =>
      Effect.gen(function* () {
        const recent = yield* jobs.list(connectionId, 20)
        const open = recent.find((j) => j.state === "en_cola" || j.state === "sincronizando")
        const last = recent.find((j) => j.finishedAt !== null)
        if (open !== undefined) return yield* connections.setState(connectionId, "sincronizando", open.errorReason)
        if (last === undefined) return
        yield* last.state === "error"
          ? connections.setState(connectionId, "error", last.errorReason)
          : connections.setState(connectionId, "sincronizada", last.state === "parcial" ? "sincronizacion_parcial" : null)
      })

    const commit = (job: JobRow, write: Effect.Effect<SyncResult, never, Persist>) =>
      Effect.gen(function* () {
        const result = yield* write
        const state = result.completo ? "sincronizada" : "parcial"
        yield* sql`INSERT INTO sync_coverage (connection_id, scope_key, scope, synced_at, completo, job_id)
                   VALUES (${job.connectionId}, ${job.scopeKey}, ${JSON.stringify(job.scope)}::jsonb, now(), ${result.completo}, ${job.id})
                   ON CONFLICT (connection_id, scope_key) DO UPDATE
                   SET scope = EXCLUDED.scope, synced_at = EXCLUDED.synced_at, completo = EXCLUDED.completo, job_id = EXCLUDED.job_id`
        if (!(yield* jobs.finish(job, state, result.counts, Option.none()))) {
          return yield* Effect.dieMessage(`sync job ${job.id} was claimed again by another worker: this attempt writes nothing`)
        }
      }).pipe(
        Effect.provideService(Persist, { sql, workspaceId: job.workspaceId, connectionId: job.connectionId, connector: job.connector }),
        sql.withTransaction,
        Effect.orDie
      )

    const attempt = (job: JobRow) =>
      Effect.gen(function* () {
        const sync = syncs.get(job.connector)
        if (sync === undefined) return yield* Effect.dieMessage(`no sync for connector ${job.connector}`)
        const login = yield* connections.open(job.connectionId)
        const held = yield* lock.tryAcquire(sessionKey(login.connector, login.institution, login.credentials.rut))
        if (Option.isNone(held)) return yield* Effect.fail(new SessionBusy())
        const report = (progress: JobRow["progress"]) => jobs.report(job, progress)
        const [fetchMs, write] = yield* Effect.timed(sync.fetch({ job, login, report }))
        const [commitMs] = yield* Effect.timed(commit(job, write))
        yield* Effect.logDebug("sync job done", { job: job.id, fetchMs: Duration.toMillis(fetchMs), commitMs: Duration.toMillis(commitMs) })
      }).pipe(Effect.scoped)

    const onFailure = (job: JobRow, error: UpstreamError | SessionBusy) => {
      if (error._tag === "SessionBusy") {
        // Another sync holds this user's upstream session: wait for it without spending an attempt.
        return jobs.release(job, Duration.millis(250))
      }
      const failure = { reason: error.reason, message: error.message }
      const exhausted = job.attempts >= job.maxAttempts
      if (TERMINAL_REASONS.has(error.reason) || exhausted) return Effect.asVoid(jobs.finish(job, "error", {}, Option.some(failure)))
      const retryAfter = "retryAfterSeconds" in error ? error.retryAfterSeconds : 5
      return jobs.retryLater(job, settings.retryDelay(retryAfter), failure)
    }

    const run = (job: JobRow) =>
      Effect.gen(function* () {
        yield* Effect.annotateCurrentSpan({ jobId: job.id, connector: job.connector })
        if (job.attempts > job.maxAttempts) {
          yield* jobs.finish(job, "error", {}, Option.some({ reason: "intentos_agotados", message: `gave up after ${job.maxAttempts} attempts` }))
          return yield* refreshConnection(job.connectionId)
        }
        yield* connections.setState(job.connectionId, "sincronizando", null)
        const heartbeat = yield* jobs.renew(job, settings.lease).pipe(
          Effect.repeat(Schedule.spaced(Duration.times(settings.lease, 1 / 3))),
          Effect.fork
        )
        const exit = yield* Effect.exit(attempt(job))
        yield* Fiber.interrupt(heartbeat)
        if (Exit.isFailure(exit)) {
          const failure = Cause.failureOption(exit.cause)
          if (Option.isSome(failure)) yield* onFailure(job, failure.value)
          else {
            yield* Effect.logError("sync job died", exit.cause)
            yield* jobs.finish(job, "error", {}, Option.some({ reason: "error_interno", message: "the sync failed unexpectedly" }))
          }
        }
        yield* refreshConnection(job.connectionId)
      }).pipe(Effect.withSpan("SyncWorker.run"))

    // A new job wakes the worker by signal; a job retried or leased until later is due at its run_after;
    // the poll only covers a lost signal.
    const untilNextDue = sql<{ readonly ms: number | null }>`
      SELECT ceil(extract(epoch FROM min(run_after) - now()) * 1000)::int AS ms FROM sync_jobs WHERE state IN ('en_cola', 'sincronizando')`.pipe(
      Effect.orDie,
      Effect.map(([row]) => {
        const ms = row?.ms ?? null
        return ms === null ? settings.poll : Duration.min(settings.poll, Duration.millis(Math.max(ms, 1)))
      })
    )

    const scope = yield* Effect.scope
    const semaphore = yield* Effect.makeSemaphore(settings.concurrency)
    const next = Effect.gen(function* () {
      yield* semaphore.take(1)
      const claimed = yield* jobs.claim(settings.lease).pipe(Effect.onError(() => semaphore.release(1)))
      if (Option.isNone(claimed)) {
        yield* semaphore.release(1)
        yield* Effect.raceFirst(Effect.flatMap(untilNextDue, Effect.sleep), Queue.take(wake))
        return
      }
      yield* run(claimed.value).pipe(Effect.ensuring(semaphore.release(1)), Effect.forkIn(scope))
      yield* Queue.offer(wake, undefined)
    })

    const pause = (cause: Cause.Cause<unknown>) => Effect.zipRight(Effect.logError("sync worker", cause), Effect.sleep(settings.poll))
    if (settings.worker) {
      yield* signals.on(Channel.syncJobs, () => Queue.offer(wake, undefined))
      yield* Effect.forkScoped(Effect.forever(next.pipe(Effect.catchAllCause(pause))))
    }
    return { wake: Queue.offer(wake, undefined) }
  }),
  dependencies: [SyncJobs.Default, SessionLock.Default, SyncSettings.Default, Signals.Default]
}) {}
