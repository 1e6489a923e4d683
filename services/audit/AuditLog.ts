import { Context, Deferred, Effect, Exit, Queue, Schedule } from "effect"
import type { AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"
import { AuditUnavailable } from "../../schema/Errors.ts"
import { AuditStore, type ChainHead } from "./AuditStore.ts"
import { chainEntries, GENESIS } from "./Chain.ts"

interface Pending {
  readonly entry: AuditEntry
  readonly done: Deferred.Deferred<AuditRow, AuditUnavailable>
}

const MAX_BATCH = 1000
const unavailable = new AuditUnavailable({ message: "the audit log could not be written" })
// (chain, seq) is unique: a writer that lost a race re-reads the head and chains again.
const raceRetry = Schedule.recurs(8)

/**
 * Group commit: one writer fiber takes whatever is queued (any workspace), chains it in process
 * from the heads it remembers, and appends it with one INSERT; every caller is answered after the
 * commit. The next flush starts as soon as the previous one ends, so under load batches grow
 * instead of requests queueing on a lock. Another process (or a call writing its row inside its
 * own transaction) may take a sequence number first: the INSERT then fails as a whole, the writer
 * forgets those heads and appends that batch under the chains' locks.
 */
export class AuditLog extends Effect.Service<AuditLog>()("brein/audit/AuditLog", {
  scoped: Effect.gen(function* () {
    const store = yield* AuditStore
    // The writer outlives the call that wakes it: it must not inherit that call's context (its transaction).
    const context = yield* Effect.context<never>()
    const heads = new Map<string, ChainHead>()
    const queue = yield* Effect.acquireRelease(Queue.unbounded<Pending>(), Queue.shutdown)

    const chain = (entries: ReadonlyArray<AuditEntry>) =>
      Effect.gen(function* () {
        const chains = [...new Set(entries.map((e) => e.workspaceId))]
        const unknown = chains.filter((c) => !heads.has(c))
        if (unknown.length > 0) {
          const found = yield* store.heads(unknown)
          for (const c of unknown) heads.set(c, found.get(c) ?? { seq: 0, digest: GENESIS })
        }
        const rows: Array<AuditRow> = []
        for (const c of chains) {
          const linked = chainEntries(c, heads.get(c)!, entries.filter((e) => e.workspaceId === c))
          rows.push(...linked)
        }
        return rows
      })

    const remember = (rows: ReadonlyArray<AuditRow>) =>
      Effect.sync(() => rows.forEach((r) => heads.set(r.chain, { seq: r.seq, digest: r.digest })))

    // Fast: one INSERT chained from the remembered heads. If someone else took a sequence number
    // first, forget those heads and append under the chains' locks, which cannot lose.
    const append = (entries: ReadonlyArray<AuditEntry>) =>
      Effect.flatMap(chain(entries), (rows) => Effect.as(store.insert(rows), rows)).pipe(
        Effect.catchTag("AuditChainMoved", (moved) =>
          Effect.sync(() => moved.chains.forEach((c) => heads.delete(c))).pipe(
            Effect.zipRight(store.appendLocked(entries)),
            Effect.retry({ schedule: raceRetry, while: (e) => e._tag === "AuditChainMoved" })
          )
        ),
        Effect.tap(remember)
      )

    const flush = Effect.gen(function* () {
      const batch = [...(yield* Queue.takeBetween(queue, 1, MAX_BATCH))]
      const result = yield* Effect.exit(append(batch.map((p) => p.entry)))
      if (Exit.isSuccess(result)) {
        const byRequest = new Map(result.value.map((row) => [row.requestId + row.chain, row]))
        for (const p of batch) Deferred.unsafeDone(p.done, Exit.succeed(byRequest.get(p.entry.requestId + p.entry.workspaceId)!))
      } else {
        for (const c of new Set(batch.map((p) => p.entry.workspaceId))) heads.delete(c)
        yield* Effect.logError("audit append failed", result.cause)
        for (const p of batch) Deferred.unsafeDone(p.done, Exit.fail(unavailable))
      }
    })
    yield* Effect.forkScoped(Effect.mapInputContext(Effect.forever(flush), (_: Context.Context<never>) => context))

    const record = (entry: AuditEntry) =>
      Effect.flatMap(Deferred.make<AuditRow, AuditUnavailable>(), (done) =>
        Effect.zipRight(Queue.offer(queue, { entry, done }), Deferred.await(done))
      )

    /**
     * Appends in the caller's own transaction, for calls that hold one: waiting on the writer while
     * holding a pooled connection starves the pool once as many such calls as connections are in flight.
     * Such callers queue on a lock per chain until they commit; only the group writer can still race them.
     */
    const recordInTransaction = Effect.fn("AuditLog.recordInTransaction")(function* (entry: AuditEntry) {
      yield* store.lock(entry.workspaceId).pipe(Effect.mapError(() => unavailable))
      const rows = yield* store.heads([entry.workspaceId]).pipe(
        Effect.map((found) => chainEntries(entry.workspaceId, found.get(entry.workspaceId) ?? { seq: 0, digest: GENESIS }, [entry])),
        Effect.tap(store.insertNested),
        Effect.retry({ schedule: raceRetry, while: (e) => e._tag === "AuditChainMoved" }),
        Effect.tapErrorCause((cause) => Effect.logError("audit append failed", cause)),
        Effect.mapError(() => unavailable)
      )
      return rows[0]!
    })

    return { record, recordInTransaction }
  })
}) {}
