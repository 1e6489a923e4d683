import { SqlClient } from "@effect/sql"
import { type Cause, Duration, Effect, Option, Queue } from "effect"
import { Channel, Signals } from "../Signals.ts"
import { SyncBatch } from "./SyncBatch.ts"
import { SyncJobs } from "./SyncJobs.ts"
import { SyncSettings } from "./SyncSettings.ts"

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
      yield* batches.run(claimed.value).pipe(Effect.ensuring(semaphore.release(1)), Effect.forkIn(scope))
      yield* Queue.offer(wake, undefined)
    })

    const pause = (cause: Cause.Cause<unknown>) => Effect.zipRight(Effect.logError("sync worker", cause), Effect.sleep(settings.poll))
    if (settings.worker) {
      yield* signals.on(Channel.syncJobs, () => Queue.offer(wake, undefined))
      yield* Effect.forkScoped(Effect.forever(next.pipe(Effect.catchAllCause(pause))))
    }
    return { wake: Queue.offer(wake, undefined) }
  }),
  dependencies: [SyncJobs.Default, SyncBatch.Default, SyncSettings.Default, Signals.Default]
}) {}
