import { Context, Deferred, Duration, Effect, Exit, Queue, RcMap } from "effect"
import type { AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"
import { AuditUnavailable } from "../../schema/Errors.ts"
import { AuditStore } from "./AuditStore.ts"

interface Pending {
  readonly entry: AuditEntry
  readonly done: Deferred.Deferred<AuditRow, AuditUnavailable>
}

const MAX_BATCH = 500

/**
 * Group commit: one writer fiber per chain (a workspace) takes whatever is queued, appends it in
 * one transaction and answers every caller after the commit. The next flush starts as soon as the
 * previous one ends, so under load batches grow instead of requests queueing on a lock.
 */
export class AuditLog extends Effect.Service<AuditLog>()("brein/audit/AuditLog", {
  scoped: Effect.gen(function* () {
    const store = yield* AuditStore
    // A writer outlives the call that starts it: it must not inherit that call's context (its transaction).
    const context = yield* Effect.context<never>()

    const writers = yield* RcMap.make({
      idleTimeToLive: Duration.minutes(1),
      lookup: (chain: string) =>
        Effect.gen(function* () {
          const queue = yield* Effect.acquireRelease(Queue.unbounded<Pending>(), Queue.shutdown)
          const flush = Effect.gen(function* () {
            const batch = [...(yield* Queue.takeBetween(queue, 1, MAX_BATCH))]
            const result = yield* Effect.exit(store.append(chain, batch.map((p) => p.entry)))
            if (Exit.isSuccess(result)) {
              yield* Effect.forEach(batch, (p, i) => Deferred.succeed(p.done, result.value[i]!), { discard: true })
            } else {
              yield* Effect.logError("audit append failed", result.cause)
              const error = new AuditUnavailable({ message: "the audit log could not be written" })
              yield* Effect.forEach(batch, (p) => Deferred.fail(p.done, error), { discard: true })
            }
          })
          yield* Effect.forkScoped(Effect.mapInputContext(Effect.forever(flush), (_: Context.Context<never>) => context))
          return queue
        })
    })

    const record = Effect.fn("AuditLog.record")(function* (entry: AuditEntry) {
      const done = yield* Deferred.make<AuditRow, AuditUnavailable>()
      return yield* RcMap.get(writers, entry.workspaceId).pipe(
        Effect.flatMap((queue) => Queue.offer(queue, { entry, done })),
        Effect.zipRight(Deferred.await(done)),
        Effect.scoped
      )
    })

    /**
     * Appends in the caller's own transaction, for calls that hold one: waiting on the writer while
     * holding a pooled connection starves the pool once as many such calls as connections are in flight.
     */
    const recordInTransaction = Effect.fn("AuditLog.recordInTransaction")(function* (entry: AuditEntry) {
      const rows = yield* store.append(entry.workspaceId, [entry]).pipe(
        Effect.tapErrorCause((cause) => Effect.logError("audit append failed", cause)),
        Effect.mapError(() => new AuditUnavailable({ message: "the audit log could not be written" }))
      )
      return rows[0]
    })

    return { record, recordInTransaction }
  })
}) {}
