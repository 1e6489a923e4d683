import { Cause, Clock, Deferred, Duration, Effect, Queue, Ref, Schedule, Stream } from "effect"
import { TERMINAL } from "../../schema/connections/SyncJob.ts"
import type { JobRow } from "./SyncJobs.ts"

const TICK = Duration.millis(100)

interface Watcher {
  readonly ids: ReadonlyArray<string>
  readonly updates: Queue.Queue<ReadonlyArray<JobRow>>
}

const ended = (jobs: ReadonlyArray<JobRow>) => jobs.every((j) => TERMINAL.includes(j.state))
const signature = (jobs: ReadonlyArray<JobRow>) => JSON.stringify(jobs.map((j) => [j.state, j.progress]))

/**
 * One watcher for every caller waiting on sync jobs: each tick reads all the watched jobs in one query
 * and hands each caller its own. A caller waits on a queue and holds no database connection.
 */
export const makeJobWatch = Effect.fn("JobWatch.make")(
  function* (byIds: (ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<JobRow>>) {
    const watchers = yield* Ref.make<ReadonlySet<Watcher>>(new Set())
    const stopped = yield* Deferred.make<void>()

    const tick = Effect.gen(function* () {
      const current = yield* Ref.get(watchers)
      if (current.size === 0) return
      const rows = yield* byIds([...new Set([...current].flatMap((w) => w.ids))])
      yield* Effect.forEach(current, (w) => Queue.offer(w.updates, rows.filter((row) => w.ids.includes(row.id))), { discard: true })
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("sync jobs could not be read for their waiters", Cause.pretty(cause))))
    // The polling cadence is the machine's, not the business clock's: a test clock set to a date
    // must not replay every tick since 1970.
    yield* Effect.forkScoped(Effect.repeat(tick, Schedule.spaced(TICK)).pipe(Effect.withClock(Clock.make())))

    const watched = (ids: ReadonlyArray<string>) =>
      Effect.acquireRelease(
        Effect.flatMap(Queue.sliding<ReadonlyArray<JobRow>>(1), (updates) => {
          const watcher: Watcher = { ids, updates }
          return Effect.as(Ref.update(watchers, (set) => new Set([...set, watcher])), watcher)
        }),
        (watcher) => Ref.update(watchers, (set) => new Set([...set].filter((w) => w !== watcher)))
      )

    /**
     * Waits until every job ended, the time is up or waiting stopped; reports progress as it changes; answers the
     * jobs as last seen (none when no tick came).
     */
    const awaitJobs = Effect.fn("JobWatch.await")(function* (
      ids: ReadonlyArray<string>,
      maxWait: Duration.Duration,
      onProgress: (jobs: ReadonlyArray<JobRow>) => Effect.Effect<void>
    ) {
      const watcher = yield* watched(ids)
      return yield* Stream.fromQueue(watcher.updates).pipe(
        Stream.changesWith((a, b) => signature(a) === signature(b)),
        Stream.tap(onProgress),
        Stream.takeUntil(ended),
        Stream.interruptWhen(Effect.race(Effect.sleep(maxWait), Deferred.await(stopped))),
        Stream.runLast
      )
    }, Effect.scoped)

    /** How many callers wait now (one query per tick serves them all). */
    const watching = Effect.map(Ref.get(watchers), (set) => set.size)

    /**
     * A shutdown's first step: every caller waiting now, or from now on, answers at once with the jobs as they stand
     * (committed, they run on; a server's drain would otherwise wait on them and cut them off when its grace ends).
     */
    const stopWaiting = Effect.fn("JobWatch.stopWaiting")(function* () {
      yield* Deferred.succeed(stopped, undefined)
    })

    return { awaitJobs, watching, stopWaiting }
  }
)
