import { Cause, Clock, Duration, Effect, Option, Queue, Ref, Schedule } from "effect"
import { TERMINAL } from "../../schema/connections/SyncJob.ts"
import type { JobRow } from "./SyncJobs.ts"

const TICK = Duration.millis(100)

interface Watcher {
  readonly ids: ReadonlyArray<string>
  readonly updates: Queue.Queue<ReadonlyArray<JobRow>>
}

/**
 * One watcher for every caller waiting on sync jobs: each tick reads all the watched jobs in one query
 * and hands each caller its own. A caller waits on a queue and holds no database connection.
 */
export const makeJobWatch = (byIds: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<JobRow>>) =>
  Effect.gen(function* () {
    const watchers = yield* Ref.make<ReadonlySet<Watcher>>(new Set())

    const tick = Effect.gen(function* () {
      const current = yield* Ref.get(watchers)
      if (current.size === 0) return
      const rows = yield* byIds([...new Set([...current].flatMap((w) => w.ids))])
      yield* Effect.forEach(current, (w) => Queue.offer(w.updates, rows.filter((row) => w.ids.includes(row.id))), { discard: true })
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("sync jobs could not be read for their waiters", Cause.pretty(cause))))
    yield* Effect.forkScoped(Effect.repeat(tick, Schedule.spaced(TICK)))

    const watched = (ids: ReadonlyArray<string>) =>
      Effect.acquireRelease(
        Effect.flatMap(Queue.sliding<ReadonlyArray<JobRow>>(1), (updates) => {
          const watcher: Watcher = { ids, updates }
          return Effect.as(Ref.update(watchers, (set) => new Set([...set, watcher])), watcher)
        }),
        (watcher) => Ref.update(watchers, (set) => new Set([...set].filter((w) => w !== watcher)))
      )

    /** Waits until every job ended or the time is up; reports progress as it changes; answers the jobs as last seen. */
    const awaitJobs = Effect.fn("JobWatch.await")(function* (
      ids: ReadonlyArray<string>,
      maxWait: Duration.Duration,
      onProgress: (jobs: ReadonlyArray<JobRow>) => Effect.Effect<void>
    ) {
      const watcher = yield* watched(ids)
      const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(maxWait)
      let last: Option.Option<ReadonlyArray<JobRow>> = Option.none()
      let seen = ""
      while (true) {
        const left = deadline - (yield* Clock.currentTimeMillis)
        if (left <= 0) return last
        const next = yield* Queue.take(watcher.updates).pipe(Effect.timeout(Duration.millis(left)), Effect.option)
        if (Option.isNone(next)) return last
        const jobs = next.value
        const signature = JSON.stringify(jobs.map((j) => [j.state, j.progress]))
        if (signature !== seen) yield* onProgress(jobs)
        seen = signature
        last = Option.some(jobs)
        if (jobs.every((j) => TERMINAL.includes(j.state))) return last
      }
    }, Effect.scoped)

    return { awaitJobs }
  })
