import type { Context } from "effect"
import { Cause, Clock, Config, Duration, Effect, Exit, Option, Queue, Redacted, Schedule, type Tracer } from "effect"
import type { AuditEntry, AuditRow } from "../../schema/audit/AuditRow.ts"
import type { Checkpoint } from "../../schema/audit/Checkpoint.ts"
import { AuditUnavailable } from "../../schema/Errors.ts"
import { setting, WholeNumberFromString } from "../../schema/Setting.ts"
import { AuditKey } from "./AuditKey.ts"
import { AuditStore, type ChainHead, refusedByDatabase } from "./AuditStore.ts"
import { boundEntry } from "./Bound.ts"
import { chainsOf, GENESIS, link, signatureHolds, signCheckpoint, type UnsignedCheckpoint } from "./Chain.ts"

interface Pending {
  readonly entry: AuditEntry
  /** Resumes the caller waiting on its row (a callback: a Deferred per call cost more than the rest of the wait). */
  readonly answer: (exit: Exit.Exit<AuditRow, AuditUnavailable>) => void
  /** The caller's span: one INSERT serves many calls, so it sits under the first and links the others. */
  readonly span: Option.Option<Tracer.AnySpan>
}

const MAX_BATCH = 1000
const unavailable = new AuditUnavailable({ message: "the audit log could not be written" })
/**
 * A writer that lost a race (another process, a deadlock the database broke) re-reads the heads and
 * chains again, for as long as the database answers: giving up would lose a row that nothing is
 * wrong with. Each attempt waits on the winner's commit, so no pause is added.
 */
const raceRetry = Schedule.forever.pipe(Schedule.upTo("2 minutes"))

/**
 * Group commit: one writer fiber takes whatever is queued (any workspace), chains it in process
 * from the heads it remembers, and appends it with one INSERT; every caller is answered after the
 * commit. The next flush starts as soon as the previous one ends, so under load batches grow
 * instead of requests queueing on a lock. Another process (or a call writing its row inside its
 * own transaction) may take a sequence number first: the INSERT then fails as a whole, the writer
 * forgets those heads and appends that batch under the chains' locks. A batch that fails for any
 * other reason is written again row by row, so one bad row fails only its own caller.
 *
 * Every few seconds, and when the scope closes, the heads of the chains written since are signed
 * into a checkpoint with a key the database does not hold.
 */
export class AuditLog extends Effect.Service<AuditLog>()("brein/audit/AuditLog", {
  scoped: Effect.gen(function* () {
    const store = yield* AuditStore
    const key = yield* AuditKey
    // at least 10 ms: 0 made the checkpoint loop spin and starve the process (no listen, no signal handled)
    const every = yield* setting("BREIN_AUDIT_CHECKPOINT_MS", WholeNumberFromString({ min: 10, unit: "milliseconds" })).pipe(
      Config.withDefault(5000),
      Config.map(Duration.millis)
    )
    // The writer outlives the call that wakes it: it must not inherit that call's context (its transaction).
    const context = yield* Effect.context<never>()
    const heads = new Map<string, ChainHead>()
    // Chains written since the last checkpoint; those of the previous round are signed once more,
    // since a row written inside a caller's transaction commits after it was counted.
    let dirty = new Set<string>()
    let previous = new Set<string>()
    const queue = yield* Effect.acquireRelease(Queue.unbounded<Pending>(), Queue.shutdown)

    // The row names the trace of the call that writes it (`span`, the caller's), unless the entry says otherwise.
    const prepared = (entry: AuditEntry, span: Option.Option<Tracer.AnySpan>) =>
      boundEntry(entry, entry.traceId !== undefined ? entry.traceId : Option.isSome(span) ? span.value.traceId : null)

    // Inside the flush's span; the heads it may read have their own (AuditStore.heads).
    const chain = Effect.fnUntraced(function* (entries: ReadonlyArray<AuditEntry>) {
      const unknown = chainsOf(entries).filter((c) => !heads.has(c))
      if (unknown.length > 0) {
        const found = yield* store.heads(unknown)
        for (const c of unknown) heads.set(c, found.get(c) ?? { seq: 0, digest: GENESIS })
      }
      return link(heads, entries)
    })

    const remember = (rows: ReadonlyArray<AuditRow>) =>
      Effect.sync(() =>
        rows.forEach((r) => {
          heads.set(r.chain, { seq: r.seq, digest: r.digest })
          dirty.add(r.chain)
        })
      )

    // Fast: one INSERT chained from the remembered heads. If someone else took a sequence number
    // first, forget those heads and append under the chains' locks, which cannot lose. Inside the
    // flush's span (AuditLog.flush), which is the append: a span of its own would repeat it per batch.
    const append = Effect.fnUntraced(
      function* (entries: ReadonlyArray<AuditEntry>) {
        const rows = yield* chain(entries)
        yield* store.insert(rows)
        return rows
      },
      (effect, entries) =>
        Effect.catchTag(effect, "AuditChainMoved", (moved) =>
          Effect.sync(() => moved.chains.forEach((c) => heads.delete(c))).pipe(
            Effect.zipRight(store.appendLocked(entries)),
            Effect.tapError((e) => Effect.sync(() => e._tag === "AuditChainMoved" && e.chains.forEach((c) => heads.delete(c)))),
            Effect.retry({ schedule: raceRetry, while: (e) => e._tag === "AuditChainMoved" })
          )),
      Effect.tap(remember)
    )

    const answer = (batch: ReadonlyArray<Pending>, rows: ReadonlyArray<AuditRow>) => {
      const byRequest = new Map(rows.map((row) => [row.requestId + "\u0000" + row.chain, row]))
      for (const p of batch) {
        const row = byRequest.get(p.entry.requestId + "\u0000" + p.entry.workspaceId)
        p.answer(row === undefined ? Exit.fail(unavailable) : Exit.succeed(row))
      }
    }

    const forget = (batch: ReadonlyArray<Pending>) => Effect.sync(() => batch.forEach((p) => heads.delete(p.entry.workspaceId)))

    const flush = Effect.gen(function* () {
      const batch = [...(yield* Queue.takeBetween(queue, 1, MAX_BATCH))]
      const [first, ...others] = batch.flatMap((p) => Option.toArray(p.span))
      return yield* flushBatch(batch).pipe(Effect.withSpan("AuditLog.flush", {
        attributes: { rows: batch.length },
        captureStackTrace: false,
        ...(first === undefined ? {} : { parent: first }),
        links: others.map((span) => ({ _tag: "SpanLink" as const, span, attributes: {} }))
      }))
    })
    const flushBatch = Effect.fnUntraced(function* (batch: Array<Pending>) {
      const result = yield* Effect.exit(append(batch.map((p) => p.entry)))
      if (Exit.isSuccess(result)) return answer(batch, result.value)
      yield* forget(batch)
      yield* Effect.logError("audit append failed", result.cause)
      const refused = Cause.failureOption(result.cause).pipe(Option.exists((e) => e._tag === "AuditStoreFailed" && refusedByDatabase(e)))
      if (batch.length === 1 || !refused) return answer(batch, [])
      // Something in the batch was refused: only the row at fault may fail its caller.
      for (const p of batch) {
        const alone = yield* Effect.exit(append([p.entry]))
        if (Exit.isFailure(alone)) {
          yield* forget([p])
          yield* Effect.logError("audit row refused", alone.cause).pipe(Effect.annotateLogs({ requestId: p.entry.requestId }))
        }
        answer([p], Exit.isSuccess(alone) ? alone.value : [])
      }
    })
    yield* Effect.forkScoped(Effect.mapInputContext(Effect.forever(flush), (_: Context.Context<never>) => context))

    const checkpoint = Effect.fn("AuditLog.checkpoint")(function* () {
      const chains = new Set([...dirty, ...previous])
      const signing = yield* key.forSigning
      if (chains.size === 0 || Option.isNone(signing)) return Option.none()
      const written = dirty
      dirty = new Set()
      const own = Redacted.value(signing.value)
      const signer = {
        sign: (unsigned: UnsignedCheckpoint) => signCheckpoint(own, unsigned),
        signed: (c: Checkpoint) => signatureHolds(own, c)
      }
      const signed = yield* store.checkpoint([...chains], signer).pipe(
        Effect.tapError(() => Effect.sync(() => written.forEach((c) => dirty.add(c))))
      )
      previous = written
      if (Option.isSome(signed)) {
        const database = yield* store.database
        yield* key.writeWitness({ database, seq: signed.value.seq, signature: signed.value.signature })
      }
      return signed
    })
    // Said once as an error (the operator has a server to restart), then every hundredth round as a warning.
    let foreignRounds = 0
    const checkpointQuietly = checkpoint().pipe(
      Effect.catchTag("AuditKeyForeign", (foreign) =>
        Effect.suspend(() => {
          foreignRounds += 1
          return foreignRounds === 1
            ? Effect.logError(`audit checkpoint not signed: ${foreign.message}`)
            : foreignRounds % 100 === 0
            ? Effect.logWarning(`audit checkpoint not signed (${foreignRounds} rounds): ${foreign.message}`)
            : Effect.void
        })),
      Effect.catchAllCause((cause) => Effect.logWarning("audit checkpoint failed; the next one retries", cause))
    )
    // Checkpoints keep real time: a test clock moved years ahead must not replay every period in between.
    yield* Effect.forkScoped(
      Effect.mapInputContext(Effect.repeat(checkpointQuietly, Schedule.spaced(every)), (_: Context.Context<never>) => context).pipe(
        Effect.withClock(Clock.make())
      )
    )
    yield* Effect.addFinalizer(() => Effect.mapInputContext(Effect.asVoid(checkpointQuietly), (_: Context.Context<never>) => context))

    // Untraced: it runs once per call, inside the caller's Executor.audit span, and only waits on the
    // group writer, whose flush has its span (under the first caller's span, linked to the others).
    // The caller's span is the current one unless given (the executor's audit step hands its own).
    // The pending row is queued in the step that asks for it (the queue is unbounded: an offer cannot wait).
    // A caller interrupted meanwhile is not answered; its row is still written.
    const enqueue = (entry: AuditEntry, span: Option.Option<Tracer.AnySpan>) =>
      Effect.async<AuditRow, AuditUnavailable>((resume) => {
        if (!Queue.unsafeOffer(queue, { entry: prepared(entry, span), answer: resume, span })) resume(Effect.fail(unavailable))
      })
    const record = (entry: AuditEntry, caller?: Tracer.AnySpan): Effect.Effect<AuditRow, AuditUnavailable> =>
      caller === undefined
        ? Effect.flatMap(Effect.option(Effect.currentSpan), (span) => enqueue(entry, span))
        : Effect.suspend(() => enqueue(entry, Option.some(caller)))

    /**
     * Appends in the caller's own transaction, for calls that hold one: waiting on the writer while
     * holding a pooled connection starves the pool once as many such calls as connections are in flight.
     * Such callers queue on a lock per chain until they commit; only the group writer can still race them.
     */
    const recordInTransaction = Effect.fn("AuditLog.recordInTransaction")(function* (raw: AuditEntry) {
      const entry = prepared(raw, yield* Effect.option(Effect.currentSpan))
      const rows = yield* store.lock(entry.workspaceId).pipe(
        Effect.zipRight(store.heads([entry.workspaceId])),
        Effect.map((found) => link(found, [entry])),
        Effect.tap(store.insertNested),
        Effect.retry({ schedule: raceRetry, while: (e) => e._tag === "AuditChainMoved" }),
        Effect.tapErrorCause((cause) => Effect.logError("audit append failed", cause)),
        Effect.mapError(() => unavailable)
      )
      yield* Effect.sync(() => dirty.add(entry.workspaceId))
      const [row] = rows
      return row === undefined ? yield* unavailable : row
    })

    /** Has the next checkpoint sign these chains' heads too: another process wrote them and signs none. */
    const cover = Effect.fn("AuditLog.cover")(function* (chains: ReadonlyArray<string>) {
      yield* Effect.sync(() => chains.forEach((c) => dirty.add(c)))
    })
    /** The chains this process wrote that no checkpoint of its own signed: all it wrote, in a process that signs none. */
    const unsigned = Effect.sync((): ReadonlyArray<string> => [...new Set([...dirty, ...previous])])

    return { record, recordInTransaction, checkpoint, cover, unsigned }
  })
}) {}
