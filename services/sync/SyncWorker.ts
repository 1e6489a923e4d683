import { SqlClient } from "@effect/sql"
import { type Array as Arr, type Cause, Duration, Effect, Fiber, FiberSet, Option, Queue, Ref, Schedule } from "effect"
import { transientIn } from "../Database.ts"
import { Channel, Signals } from "../Signals.ts"
import { SyncBatch } from "./SyncBatch.ts"
import { type ClaimedJob, SyncJobs } from "./SyncJobs.ts"
import { SyncSettings } from "./SyncSettings.ts"

/**
 * Waits for work: reads when the next job is due (or how long to back off), then sleeps that long or until
 * woken. A wake never interrupts the read: an interrupted statement is canceled by a cancel request that can land late, on
 * whichever statement its pooled connection serves next (another caller's, who would be answered 503).
 * A wake that comes during the read stays queued and ends the sleep. A stop may interrupt the read: it
 * comes once the server has drained, and a database that stopped answering must not hold a shutdown.
 */
export const awaitWork = Effect.fn("SyncWorker.awaitWork")(
  function* (dueIn: Effect.Effect<Duration.Duration>, wake: Queue.Dequeue<void>) {
    const due = yield* dueIn
    yield* Effect.raceFirst(Effect.sleep(due), Queue.take(wake))
  }
)

/**
 * The wait after each empty claim while jobs are due, as a value: a driver sleeps a schedule's delay itself, where no
 * wake can end it, so the delay is zeroed and awaitWork sleeps it instead.
 */
const heldBackoff = (poll: Duration.Duration) =>
  Schedule.union(Schedule.exponential(Duration.millis(10)), Schedule.spaced(poll)).pipe(
    Schedule.delays,
    Schedule.modifyDelay(() => Duration.zero)
  )

/** Runs due sync jobs: every server process runs one; jobs are claimed with SKIP LOCKED and a lease, a connection's due jobs together. */
export class SyncWorker extends Effect.Service<SyncWorker>()("brein/sync/SyncWorker", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* SyncJobs
    const batches = yield* SyncBatch
    const settings = yield* SyncSettings
    const signals = yield* Signals
    const wake = yield* Queue.sliding<void>(1)

    // A new job wakes the worker by signal; a job retried or leased until later is due at its run_after;
    // the poll only covers a lost signal.
    const untilNextDue = sql<{ readonly ms: number | null }>`
      SELECT ceil(extract(epoch FROM min(run_after) - now()) * 1000)::int AS ms FROM sync_jobs WHERE state IN ('en_cola', 'sincronizando')`
      .pipe(
        Effect.orDie,
        Effect.map(([row]) => {
          const ms = row?.ms ?? null
          return ms === null ? settings.poll : Duration.min(settings.poll, Duration.millis(Math.max(ms, 1)))
        })
      )

    const running = yield* FiberSet.make()
    const semaphore = yield* Effect.makeSemaphore(settings.concurrency)
    const stopping = yield* Ref.make(false)
    /** A batch stopped by a shutdown hands its unfinished jobs back at once, their attempt unspent. */
    const handBack = Effect.fn("SyncWorker.handBack")(function* (batch: Arr.NonEmptyReadonlyArray<ClaimedJob>) {
      // a scope closed without `stop` is a crash: its jobs wait for their lease, as after a kill
      if (!(yield* Ref.get(stopping))) return
      yield* Effect.forEach(batch, (job) => jobs.release(job, Duration.zero), { discard: true })
      yield* Effect.logInfo("sync stopped: its unfinished jobs are queued again").pipe(
        Effect.annotateLogs({ connectionId: batch[0].connectionId })
      )
    })
    // The worker stops only between claims: jobs it claimed are always in a batch that hands them back.
    const claimAndRun = Effect.uninterruptible(Effect.gen(function* () {
      const claimed = yield* jobs.claim(settings.lease).pipe(Effect.onError(() => semaphore.release(1)))
      if (Option.isNone(claimed)) return yield* Effect.as(semaphore.release(1), false)
      const batch = claimed.value
      yield* FiberSet.run(
        running,
        batches.run(batch).pipe(
          Effect.interruptible,
          Effect.onInterrupt(() => handBack(batch)),
          Effect.ensuring(semaphore.release(1))
        )
      )
      return true
    }))
    // Jobs due, yet none claimed: every due job's connection is held (its delete, a settle). Claiming again at once
    // would spin while the hold lasts: wait longer each time, up to the poll, until a claim succeeds or a job is due later.
    // A wake (a new job, maybe on a free connection) ends the wait early; the next empty claim waits longer still.
    const held = yield* Schedule.driver(heldBackoff(settings.poll))
    const afterEmptyClaim = Effect.flatMap(untilNextDue, (due) =>
      Duration.lessThanOrEqualTo(due, Duration.millis(1))
        ? Effect.tap(
          Effect.orDie(held.next(undefined)),
          (backoff) => Effect.annotateCurrentSpan("sync.held_backoff_ms", Duration.toMillis(backoff))
        )
        : Effect.as(held.reset, due))
    const next = Effect.gen(function* () {
      yield* semaphore.take(1)
      if (yield* claimAndRun) return yield* Effect.zipRight(held.reset, Queue.offer(wake, undefined))
      yield* awaitWork(afterEmptyClaim, wake)
    })

    // The database being away (lost, refused, no connection in time) is expected to pass: a warning, as a 503 is.
    const pause = (cause: Cause.Cause<unknown>) =>
      Effect.zipRight(
        Option.isSome(transientIn(cause))
          ? Effect.logWarning("sync worker: database unavailable, claiming again after the poll", cause)
          : Effect.logError("sync worker", cause),
        Effect.sleep(settings.poll)
      )
    const loop = settings.worker
      ? Option.some(
        yield* Effect.zipRight(
          signals.on(Channel.syncJobs, () => Queue.offer(wake, undefined)),
          Effect.forkScoped(Effect.forever(next.pipe(Effect.catchAllCause(pause))))
        )
      )
      : Option.none()

    /** A shutdown's stop: no more claims, and the running batches hand their jobs back for another worker. */
    const stop = Effect.gen(function* () {
      yield* Ref.set(stopping, true)
      if (Option.isSome(loop)) yield* Fiber.interrupt(loop.value)
      yield* FiberSet.clear(running)
    }).pipe(Effect.withSpan("SyncWorker.stop"))
    return { wake: Queue.offer(wake, undefined), stop }
  }),
  dependencies: [SyncJobs.Default, SyncBatch.Default, SyncSettings.Default, Signals.Default]
}) {}
