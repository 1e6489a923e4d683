import { type Cause, Effect, Option, Queue } from "effect"
import { SyncBatch } from "./SyncBatch.ts"
import { SyncJobs } from "./SyncJobs.ts"
import { SyncSettings } from "./SyncSettings.ts"

/** Runs due sync jobs: every server process runs one; jobs are claimed with SKIP LOCKED and a lease, a connection's due jobs together. */
export class SyncWorker extends Effect.Service<SyncWorker>()("brein/sync/SyncWorker", {
  scoped: Effect.gen(function* () {
    const jobs = yield* SyncJobs
    const batches = yield* SyncBatch
    const settings = yield* SyncSettings
    const wake = yield* Queue.sliding<void>(1)

    const scope = yield* Effect.scope
    const semaphore = yield* Effect.makeSemaphore(settings.concurrency)
    const next = Effect.gen(function* () {
      yield* semaphore.take(1)
      const claimed = yield* jobs.claim(settings.lease).pipe(Effect.onError(() => semaphore.release(1)))
      if (Option.isNone(claimed)) {
        yield* semaphore.release(1)
        yield* Effect.raceFirst(Effect.sleep(settings.poll), Queue.take(wake))
        return
      }
      yield* batches.run(claimed.value).pipe(Effect.ensuring(semaphore.release(1)), Effect.forkIn(scope))
      yield* Queue.offer(wake, undefined)
    })

    const pause = (cause: Cause.Cause<unknown>) => Effect.zipRight(Effect.logError("sync worker", cause), Effect.sleep(settings.poll))
    if (settings.worker) yield* Effect.forkScoped(Effect.forever(next.pipe(Effect.catchAllCause(pause))))
    return { wake: Queue.offer(wake, undefined) }
  }),
  dependencies: [SyncJobs.Default, SyncBatch.Default, SyncSettings.Default]
}) {}
