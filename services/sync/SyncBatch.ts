import { SqlClient } from "@effect/sql"
import { Array as Arr, Cause, Duration, Effect, Exit, Option, Schedule } from "effect"
import type { JobError } from "../../schema/connections/SyncJob.ts"
import { UpstreamCredentialsInvalid, type UpstreamError } from "../../schema/upstream/Errors.ts"
import { Connections, type Ended, sessionKey } from "../connections/Connections.ts"
import type { VaultKeyUnusable } from "../connections/Vault.ts"
import { retryTransient, transientIn } from "../Database.ts"
import { Persist } from "../tools/Persist.ts"
import { currentSessionGuard } from "../upstream/SessionGuard.ts"
import { ConnectorSyncs, type SyncResult, type SyncSession } from "./ConnectorSync.ts"
import { type SessionLeaseLost, SessionLock } from "./SessionLock.ts"
import { type ClaimedJob, SyncJobs } from "./SyncJobs.ts"
import { SyncSettings } from "./SyncSettings.ts"

const TERMINAL_REASONS = new Set(["credenciales_invalidas", "mfa_requerido", "mfa_timeout"])

class SessionBusy {
  readonly _tag = "SessionBusy"
}

/** The connection's credentials were replaced between the claim and the login: the batch runs again with the new ones. */
class CredentialsReplaced {
  readonly _tag = "CredentialsReplaced"
}

/** The batch's jobs were deleted (with their connection) while it ran. */
class JobsDeleted {
  readonly _tag = "JobsDeleted"
}

/** What a settling transaction leaves the connection as: `ended` once no job of it is open, else `whileOpen`. */
interface Settled {
  readonly ended: Ended
  readonly whileOpen: string | null
}

const stillOpen = (whileOpen: string | null): Settled => ({ ended: { state: "sincronizando", reason: whileOpen }, whileOpen })

const lastOf = (settled: ReadonlyArray<Settled>): Settled => settled.at(-1) ?? stillOpen(null)

/** A job whose connection's credentials the server's key cannot open. */
const KEY_UNUSABLE: JobError = {
  reason: "credenciales_ilegibles",
  message:
    "the server cannot open this connection's credentials: its credentials key cannot be used (the server's log says why and how its operator fixes it); sync again once it is fixed"
}

const annotated = (job: ClaimedJob) => Effect.annotateLogs({ connectionId: job.connectionId, jobId: job.id, attempt: job.attempts })

/**
 * Runs the jobs of one connection that were claimed together under one upstream login. Every way a
 * job ends (its rows, its coverage, its final state) commits in one transaction with the state of
 * its connection, so no reader ever sees a finished job under a connection that still syncs. A job
 * whose connection's credentials were replaced after its login keeps what it read (the old
 * credentials were the connection's when it read) but leaves the connection `pendiente`.
 */
export class SyncBatch extends Effect.Service<SyncBatch>()("brein/sync/SyncBatch", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* SyncJobs
    const connections = yield* Connections
    const syncs = yield* ConnectorSyncs
    const lock = yield* SessionLock
    const settings = yield* SyncSettings

    const settle = Effect.fn("SyncBatch.settle")(
      function* (claimed: ClaimedJob, body: Effect.Effect<Settled>) {
        if (!(yield* connections.lock(claimed.connectionId))) {
          // its jobs went with it: nothing is left to end, and what was read is no one's
          return yield* Effect.logInfo("the connection was deleted while this sync ran: what it read is dropped").pipe(
            Effect.annotateLogs({ connectionId: claimed.connectionId, jobId: claimed.id })
          )
        }
        const { ended, whileOpen } = yield* body
        if (yield* connections.settle(claimed.connectionId, claimed.credentialsGeneration, ended, whileOpen)) return
        yield* Effect.logInfo("the connection's credentials were replaced while this sync ran: it stays pendiente").pipe(
          Effect.annotateLogs({ connectionId: claimed.connectionId, jobState: ended.state })
        )
      },
      sql.withTransaction,
      Effect.orDie
    )

    // While the database is away: try again until the jobs' claim would run out anyway.
    const untilBack = Schedule.exponential(Duration.millis(100)).pipe(
      Schedule.union(Schedule.spaced(Duration.seconds(2))),
      Schedule.upTo(settings.lease)
    )

    /** The database failed under these jobs, not their sync: hand them back without spending their attempt. */
    const requeue = Effect.fn("SyncBatch.requeue")(
      function* (batch: Arr.NonEmptyReadonlyArray<ClaimedJob>, cause: Cause.Cause<unknown>) {
        const first = Arr.headNonEmpty(batch)
        yield* Effect.logWarning("sync interrupted by a database failure: the jobs will run again without spending an attempt", cause).pipe(
          Effect.annotateLogs({ connectionId: first.connectionId, jobs: batch.length })
        )
        yield* retryTransient(
          settle(
            first,
            Effect.as(Effect.forEach(batch, (job) => jobs.release(job, Duration.millis(250))), stillOpen(null))
          ),
          untilBack
        )
      },
      Effect.catchAllDefect((defect) =>
        Effect.logError("sync jobs could not be handed back; their claim will run out and they run again", Cause.die(defect))
      )
    )

    const fail = (job: ClaimedJob, error: JobError) =>
      Effect.as(
        jobs.finish(job, "error", {}, Option.some(error)),
        { ended: { state: "error", reason: error.reason }, whileOpen: null } as const
      )

    const commit = (job: ClaimedJob, write: Effect.Effect<SyncResult, never, Persist>) =>
      settle(
        job,
        Effect.gen(function* () {
          const result = yield* write
          yield* sql`INSERT INTO sync_coverage (connection_id, scope_key, scope, synced_at, completo, job_id)
                     VALUES (${job.connectionId}, ${job.scopeKey}, ${JSON.stringify(job.scope)}::jsonb, now(), ${
            result.missing === null
          }, ${job.id})
                     ON CONFLICT (connection_id, scope_key) DO UPDATE
                     SET scope = EXCLUDED.scope, synced_at = EXCLUDED.synced_at, completo = EXCLUDED.completo, job_id = EXCLUDED.job_id`
            .pipe(Effect.orDie)
          const error = Option.map(Option.fromNullable(result.missing), (m) => ({ reason: "sincronizacion_parcial", ...m }))
          if (!(yield* jobs.finish(job, Option.isNone(error) ? "sincronizada" : "parcial", result.counts, error))) {
            return yield* Effect.dieMessage(`sync job ${job.id} was claimed again by another worker: this attempt writes nothing`)
          }
          return {
            ended: { state: "sincronizada", reason: Option.isNone(error) ? null : "sincronizacion_parcial" },
            whileOpen: null
          } as const
        }).pipe(
          Effect.provideService(Persist, { sql, workspaceId: job.workspaceId, connectionId: job.connectionId, connector: job.connector })
        )
      )

    /** In the settling transaction: what an upstream failure does to one job (retry later, or end it). */
    const failure = (job: ClaimedJob, error: UpstreamError): Effect.Effect<Settled> =>
      Effect.gen(function* () {
        const reason = error.reason
        if (reason === "credenciales_invalidas") {
          const refused = {
            reason,
            message:
              `the upstream refused the stored credentials: replace them with PATCH /api/v1/connections/${job.connectionId}; no login is tried until then`
          }
          const failed = yield* jobs.failQueued(job, refused)
          if (failed > 0) {
            yield* Effect.logInfo("queued sync jobs failed without a login: the credentials were refused").pipe(
              Effect.annotateLogs({ failed })
            )
          }
          return yield* fail(job, refused)
        }
        // A job's error says the wait the upstream asked for, which the error's own message can only name by its field.
        const message = "retryAfterSeconds" in error ? `${error.message} (${error.retryAfterSeconds} s)` : error.message
        if (TERMINAL_REASONS.has(reason) || job.attempts >= job.maxAttempts) return yield* fail(job, { reason, message })
        const retryAfter = "retryAfterSeconds" in error ? error.retryAfterSeconds : 5
        const delay = settings.retryDelay(retryAfter)
        yield* jobs.retryLater(job, delay, { reason, message })
        yield* Effect.logInfo("sync job will be retried").pipe(
          Effect.annotateLogs({ reason, retryInMs: Duration.toMillis(delay), maxAttempts: job.maxAttempts })
        )
        return stillOpen(reason)
      }).pipe(annotated(job))

    const died = (job: ClaimedJob, cause: Cause.Cause<unknown>) =>
      Effect.zipRight(
        Effect.logError("sync job died", cause).pipe(annotated(job)),
        settle(job, fail(job, { reason: "error_interno", message: "the sync failed unexpectedly" }))
      )

    /** Reads one job's scope under the batch's session and commits it; its failure is its own. */
    const runJob = Effect.fn("SyncBatch.runJob")(function* (session: SyncSession, job: ClaimedJob) {
      yield* Effect.annotateCurrentSpan({ jobId: job.id, connector: job.connector })
      const report = (progress: ClaimedJob["progress"]) => jobs.report(job, progress)
      const exit = yield* Effect.exit(Effect.gen(function* () {
        const [fetchMs, write] = yield* Effect.timed(session.read({ job, report }))
        const [commitMs] = yield* Effect.timed(commit(job, write))
        yield* Effect.logDebug("sync job done").pipe(
          Effect.annotateLogs({ fetchMs: Duration.toMillis(fetchMs), commitMs: Duration.toMillis(commitMs) })
        )
      }))
      if (Exit.isSuccess(exit)) return
      const upstream = Cause.failureOption(exit.cause)
      if (Option.isSome(upstream)) return yield* settle(job, failure(job, upstream.value))
      if (Option.isSome(transientIn(exit.cause))) return yield* requeue([job], exit.cause)
      yield* died(job, exit.cause)
    }, (effect, _session, job) => annotated(job)(effect))

    /** One login for the whole batch; the jobs then read one after the other under it. */
    const underOneSession = Effect.fn("SyncBatch.session")(function* (batch: Arr.NonEmptyReadonlyArray<ClaimedJob>) {
      const first = Arr.headNonEmpty(batch)
      const sync = syncs.get(first.connector)
      if (sync === undefined) return yield* Effect.dieMessage(`no sync for connector ${first.connector}`)
      const login = yield* connections.open(first.connectionId)
      if (login.generation !== first.credentialsGeneration) return yield* Effect.fail(new CredentialsReplaced())
      if (login.refused) {
        return yield* new UpstreamCredentialsInvalid({
          upstream: login.connector,
          message: "the upstream refused these credentials on an earlier login, and another bad login may lock the user out"
        })
      }
      const held = yield* lock.tryAcquire(sessionKey(login.connector, login.institution, login.credentials.rut))
      if (Option.isNone(held)) return yield* Effect.fail(new SessionBusy())
      const lease = held.value
      // Losing the lease interrupts the session wherever it is; the guard holds back any step about to start.
      yield* Effect.raceFirst(
        Effect.gen(function* () {
          const session = yield* sync.login(login)
          for (const job of batch.slice(1)) yield* jobs.report(job, { done: 1, total: sync.steps, step: "en espera" })
          for (const job of batch) yield* runJob(session, job)
        }).pipe(Effect.locally(currentSessionGuard, lease.check)),
        lease.lost
      )
    }, Effect.scoped)

    const onLoginFailure = (
      batch: Arr.NonEmptyReadonlyArray<ClaimedJob>,
      cause: Cause.Cause<UpstreamError | SessionBusy | SessionLeaseLost | CredentialsReplaced | VaultKeyUnusable | JobsDeleted>
    ) => {
      const first = Arr.headNonEmpty(batch)
      const error = Cause.failureOption(cause)
      if (Option.isNone(error) && Option.isSome(transientIn(cause))) return requeue(batch, cause)
      if (Option.isNone(error)) {
        return Effect.zipRight(
          Effect.logError("sync batch died", cause),
          settle(
            first,
            Effect.map(
              Effect.forEach(batch, (job) => fail(job, { reason: "error_interno", message: "the sync failed unexpectedly" })),
              lastOf
            )
          )
        )
      }
      const failed = error.value
      if (failed._tag === "JobsDeleted") {
        return Effect.logInfo("the connection was deleted while this sync ran: its upstream session stopped").pipe(annotated(first))
      }
      // Another sync holds this user's upstream session: wait for it without spending an attempt.
      // The database could not confirm the session lease: the session stopped; try again soon without spending an attempt.
      // The credentials were replaced before the login: claimed again, the jobs log in with the new ones.
      if (failed._tag === "SessionBusy" || failed._tag === "SessionLeaseLost" || failed._tag === "CredentialsReplaced") {
        return settle(first, Effect.as(Effect.forEach(batch, (job) => jobs.release(job, Duration.millis(250))), stillOpen(null)))
      }
      // The server's credentials key cannot open them: no attempt would do better until its operator fixes it.
      if (failed._tag === "VaultKeyUnusable") {
        return Effect.zipRight(
          Effect.logError("a sync cannot open its connection's credentials", failed.message).pipe(annotated(first)),
          settle(first, Effect.map(Effect.forEach(batch, (job) => fail(job, KEY_UNUSABLE)), lastOf))
        )
      }
      // One transaction: now() is the same for every job, so jobs retried together are claimed together again.
      return settle(first, Effect.map(Effect.forEach(batch, (job) => failure(job, failed)), lastOf))
    }

    const run = Effect.fn("SyncBatch.run")(function* (batch: Arr.NonEmptyReadonlyArray<ClaimedJob>) {
      yield* Effect.annotateCurrentSpan({ connectionId: Arr.headNonEmpty(batch).connectionId, jobs: batch.length })
      for (const job of batch.filter((j) => j.takenOver)) {
        yield* Effect.logInfo("sync job taken over: the worker that held it stopped renewing its lease").pipe(annotated(job))
      }
      const [runnable, spent] = Arr.partition(batch, (j) => j.attempts > j.maxAttempts)
      for (const job of spent) {
        yield* settle(job, fail(job, { reason: "intentos_agotados", message: `gave up after ${job.maxAttempts} attempts` }))
      }
      if (!Arr.isNonEmptyReadonlyArray(runnable)) return
      // Renews the jobs' lease until they are found deleted (their connection deleted): the session then stops.
      // A beat that comes after the last job finished, while the session still ends, renews none and goes on.
      const heartbeat = jobs.renew(runnable, settings.lease).pipe(
        Effect.map((beat) => beat.gone),
        // A renewal lost to a database failure is not the end of the heartbeat.
        Effect.catchAllDefect((defect) =>
          Effect.as(Effect.logWarning("sync job lease not renewed; trying again", Cause.die(defect)), false)
        ),
        Effect.repeat({ schedule: Schedule.spaced(Duration.times(settings.lease, 1 / 3)), until: (gone) => gone }),
        Effect.zipRight(Effect.fail(new JobsDeleted()))
      )
      const exit = yield* Effect.exit(Effect.raceFirst(underOneSession(runnable), heartbeat))
      if (Exit.isFailure(exit)) yield* onLoginFailure(runnable, exit.cause)
    })

    return { run }
  }),
  dependencies: [SyncJobs.Default, SessionLock.Default, SyncSettings.Default]
}) {}
