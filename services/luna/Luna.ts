import { Cause, Clock, Deferred, Duration, Effect, Exit, FiberSet, Option, Ref, Schedule, Scope, Stream } from "effect"
import { ServiceUnavailable } from "../../schema/Errors.ts"
import { type FollowEvent, isTurnEnd, type LunaEvent, type StreamResume } from "../../schema/luna/Events.ts"
import { TurnInProgress } from "../../schema/luna/Session.ts"
import type { Stage } from "../../schema/tools/Definition.ts"
import { Boards } from "../catalog/Boards.ts"
import { newId } from "../Ids.ts"
import { Executor } from "../pipeline/Executor.ts"
import { SessionLock } from "../sync/SessionLock.ts"
import { Registry } from "../tools/Registry.ts"
import { beltOf } from "./Belts.ts"
import { boardItemsOf } from "./BoardItems.ts"
import { COVERAGE_REF, COVERAGE_TOOL, coverageIn } from "./Coverage.ts"
import { ModelGateway } from "./ModelGateway.ts"
import { viewOf } from "./Projection.ts"
import { SessionStates, type TurnsAsked } from "./SessionStates.ts"
import type { Emit } from "./ToolStep.ts"
import { runTurn, type TurnContext } from "./Turn.ts"
import { type CitableResult, historyOf, resultsOf, systemMessage } from "./TurnInput.ts"
import { type Owner, type TurnPlace, WorkSessions } from "./WorkSessions.ts"

/** A session's turn lease: held by the running turn (named by its id) in whichever process runs it. */
const TURN_LEASE = "luna:turn:"
/** How many events a reader let go at a stop still reads before it is told where to resume. */
export const FOLLOW_REST = 1_000
/** As many permits as starts can be under way at once: a stop takes every one. */
const EVERY_START = Number.MAX_SAFE_INTEGER
const STOPPED = "the service stopped during the turn; effects already executed are not undone"

/**
 * Luna: runs a session's turns over the shared registry and executor. A turn runs in the service's
 * own scope, so it finishes (and its log is complete) even when the client that started it goes away;
 * clients read the turn from the log. One turn at a time per session across every process: a turn holds
 * the session's lease (SessionLock) while it runs. A turn whose process died (its lease ran out) is
 * ended in the log as failed by whichever process next takes the lease: the next message, or the sweep.
 */
export class Luna extends Effect.Service<Luna>()("brein/luna/Luna", {
  scoped: Effect.gen(function* () {
    const registry = yield* Registry
    const executor = yield* Executor
    const gateway = yield* ModelGateway
    const sessions = yield* WorkSessions
    const states = yield* SessionStates
    const boards = yield* Boards
    const lock = yield* SessionLock
    // the running turns, each in the service's scope (a client that goes away does not end its turn)
    const running = yield* FiberSet.make()
    // a shutdown under way: no turn starts from its first step, and live readers are let go at its last
    const stopping = yield* Deferred.make<void>()
    const released = yield* Deferred.make<void>()
    // A start holds a permit from its check of `stopping` to its turn's registration among the running ones, and a
    // stop takes them all before it ends those: a message that passed the check is started, then stopped, never
    // started after the stop.
    const starting = yield* Effect.makeSemaphore(EVERY_START)

    const emitter = (sessionId: string, place: TurnPlace): Emit => (bodies) => Effect.asVoid(sessions.append(sessionId, place, bodies))

    /**
     * What the Mercado data set covers, for a buscando turn's input (the model never calls it): Luna calls
     * market_capabilities once per session, through the executor, and the log keeps the answer (ref mercado).
     */
    const compileCoverage = Effect.fn("Luna.coverage")(function* (who: Owner, sessionId: string, emit: Emit) {
      const answered = yield* Effect.option(executor.call(COVERAGE_TOOL, {}, { surface: "luna", principal: who.principal, sessionId }))
      if (answered._tag === "None") return null
      const { meta, ...payload } = answered.value
      const part = { type: "tool", tool_call_id: `coverage_${meta.request_id}`, tool_id: COVERAGE_TOOL } as const
      yield* emit([{ ...part, state: "input-available", input: {} }, {
        ...part,
        state: "output-available",
        ref: COVERAGE_REF,
        output: payload,
        request_id: meta.request_id,
        audit_status: meta.audit_status
      }])
      return { ref: COVERAGE_REF, toolId: COVERAGE_TOOL, payload } satisfies CitableResult
    })

    const execute = Effect.fn("Luna.execute")(function* (who: Owner, sessionId: string, place: TurnPlace, stage: Stage, text: string) {
      const earlier = (yield* states.context(sessionId)).filter((event) => event.turn_id !== place.turnId)
      const board = yield* boards.read(who.principal, sessionId)
      const emit = emitter(sessionId, place)
      const known = coverageIn(earlier)
      const coverage = known ?? (stage === "buscando" ? yield* compileCoverage(who, sessionId, emit) : null)
      const facts = resultsOf(earlier).filter((result) => result.ref !== COVERAGE_REF)
      const results = coverage === null ? facts : [coverage, ...facts]
      const system = systemMessage({
        stage,
        belt: beltOf(registry.tools, stage),
        board: { items: board.items, selected: board.selected },
        facts,
        coverage
      })
      const context: TurnContext = {
        registry,
        gateway,
        executor,
        who,
        sessionId,
        emit,
        show: (result) => {
          const items = boardItemsOf(result.payload)
          return items.length === 0 ? Effect.void : Effect.asVoid(boards.show(who.principal, sessionId, items))
        }
      }
      const end = yield* runTurn(context, {
        stage,
        messages: [system, ...historyOf(earlier), { role: "user", content: text }],
        results,
        nextRef: facts.length + 1
      })
      yield* sessions.append(sessionId, place, [{ type: "turn.completed", outcome: end.outcome, metrics: end.metrics }])
    })

    const failTurn = (sessionId: string, place: TurnPlace, tag: string, message: string) =>
      sessions.append(sessionId, place, [{ type: "turn.failed", error: { tag, message } }]).pipe(Effect.ignore)

    /** Ends as failed the session's turns that never ended: called holding its lease, so none of them is running. */
    const settle = Effect.fn("Luna.settle")(function* (sessionId: string) {
      for (const place of yield* sessions.unended(sessionId)) {
        yield* Effect.logWarning("a Luna turn was cut off by a stop of its process: it is ended as failed").pipe(
          Effect.annotateLogs({ sessionId, turnId: place.turnId })
        )
        yield* failTurn(sessionId, place, "Interrupted", STOPPED)
      }
    })

    /** The sessions whose turn lease ran out unreleased (their process died mid-turn): each taken, settled and let go. */
    const sweep = Effect.fn("Luna.sweep")(function* () {
      for (const key of yield* lock.expired(TURN_LEASE)) {
        yield* Effect.scoped(
          Effect.flatMap(lock.tryAcquire(key), (lease) => Option.isSome(lease) ? settle(key.slice(TURN_LEASE.length)) : Effect.void)
        )
      }
    })
    // On the real clock, as the leases' expiry is the database's (a test's clock moved by years must not replay it)
    yield* Effect.forkScoped(
      sweep().pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("the sweep of cut-off Luna turns failed; it runs again", cause)),
        Effect.repeat(Schedule.spaced(Duration.max(lock.ttl, Duration.seconds(1)))),
        Effect.withClock(Clock.make())
      )
    )

    /** Starts a turn: writes its first events and runs it in the background. Answers where the turn's events start. */
    const start = Effect.fn("Luna.start")(function* (who: Owner, sessionId: string, text: string) {
      if (yield* Deferred.isDone(stopping)) return yield* ServiceUnavailable.stopping
      yield* sessions.get(who, sessionId)
      yield* gateway.ready
      return yield* starting.withPermits(1)(Effect.gen(function* () {
        if (yield* Deferred.isDone(stopping)) return yield* ServiceUnavailable.stopping
        return yield* begin(who, sessionId, text)
      }))
    })

    /** A turn's start once no stop can come between: its lease, its first events, and the turn forked among the running. */
    const begin = Effect.fn("Luna.begin")(function* (who: Owner, sessionId: string, text: string) {
      const turnId = yield* newId("turn")
      // From the lease taken to the turn forked, nothing may be cut off in between: an interruption there (its
      // client gone) would leave the lease renewed until the process stops and the session refusing every message.
      // Only the steps that wait are interruptible, each undoing what came before it if it is.
      return yield* Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          // The session's lease, taken in one statement: two messages at once, to any process, cannot both start a
          // turn. It lives in the turn's own scope, closed when the turn ends.
          const turnScope = yield* Scope.make()
          const lease = yield* restore(Scope.extend(lock.tryAcquire(`${TURN_LEASE}${sessionId}`, turnId), turnScope)).pipe(
            Effect.onError((cause) => Scope.close(turnScope, Exit.failCause(cause)))
          )
          if (Option.isNone(lease)) {
            yield* Scope.close(turnScope, Exit.void)
            const busy = yield* restore(lock.holderOf(`${TURN_LEASE}${sessionId}`))
            return yield* new TurnInProgress({
              sessionId,
              turnId: Option.getOrElse(busy, () => "(it has just ended)"),
              message: "this session is running a turn: one turn at a time",
              hint: "Read the running turn from GET /api/v1/sessions/{id}/events and send the message when it ends"
            })
          }
          const place: TurnPlace = { turnId, parentTurnId: null, variant: 1 }
          // read again once the turn is ours: a turn that ended meanwhile may have moved the stage
          const { first, session } = yield* restore(Effect.gen(function* () {
            yield* settle(sessionId)
            const session = yield* sessions.get(who, sessionId)
            const first = yield* sessions.append(sessionId, place, [{ type: "turn.started", stage: session.stage }, {
              type: "message.user",
              text
            }])
            return { first, session }
          })).pipe(Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(turnScope, exit) : Effect.void))
          // Its lease lost (the database unreachable longer than the lease lasts), another process may start a turn:
          // this one stops.
          const leaseLost = Effect.flatMap(
            Effect.option(lease.value.lost),
            () => Effect.dieMessage("the session's turn lease was lost: the database could not be reached in time")
          )
          // The turn itself is interruptible (a stop ends it), and so is the race in it; what its end writes is
          // not: an interruption that comes before the turn's first step still ends it in the log.
          yield* restore(
            execute(who, sessionId, place, session.stage, text).pipe(
              Effect.raceFirst(leaseLost),
              Effect.catchAllCause((cause) =>
                Cause.isInterruptedOnly(cause)
                  ? Effect.failCause(cause)
                  : Effect.zipRight(
                    Effect.logError("a Luna turn failed", cause),
                    failTurn(sessionId, place, "TurnFailed", "the turn stopped on an internal error")
                  )
              )
            )
          ).pipe(
            Effect.onInterrupt(() => failTurn(sessionId, place, "Interrupted", STOPPED)),
            Effect.ensuring(Scope.close(turnScope, Exit.void)),
            FiberSet.run(running)
          )
          return { turnId, after: (first[0]?.seq ?? 1) - 1 }
        })
      )
    })

    /** A started turn's events, from turn.started to its end. */
    const turnEvents = (sessionId: string, started: { readonly turnId: string; readonly after: number }) =>
      sessions.tail(sessionId, started.after, (event) => isTurnEnd(event) && event.turn_id === started.turnId)

    /** Runs a turn and streams its events, from turn.started to its end. */
    const turn = (who: Owner, sessionId: string, text: string): Stream.Stream<LunaEvent, Effect.Effect.Error<ReturnType<typeof start>>> =>
      Stream.unwrap(Effect.map(start(who, sessionId, text), (started) => turnEvents(sessionId, started)))

    /**
     * The session's events after `after`, then live as they are written (a reader resumes with the last seq it saw,
     * here or on another server). A shutdown ends the stream once it has delivered every event written until the
     * readers were let go (at most FOLLOW_REST after the last one it had sent, then where to resume): the end the stop wrote
     * for a turn that was running is among them.
     */
    const follow = Effect.fn("Luna.follow")(function* (who: Owner, sessionId: string, after: number) {
      yield* sessions.get(who, sessionId)
      return Stream.unwrap(Effect.map(Ref.make(after), (delivered) => {
        const live = sessions.tail(sessionId, after, () => false).pipe(
          Stream.interruptWhen(Deferred.await(released)),
          Stream.tap((event) => Ref.set(delivered, event.seq))
        )
        const rest = Stream.fromIterableEffect(Effect.flatMap(Ref.get(delivered), (seq) => restAfter(sessionId, seq)))
        return Stream.concat<FollowEvent, never, never, FollowEvent, never, never>(live, rest)
      }))
    })

    /**
     * What a reader let go at a stop still reads, so that the stop is not held up by one far behind: at most
     * FOLLOW_REST events, then, if more remain, where to resume.
     */
    const restAfter = Effect.fn("Luna.followRest")(function* (sessionId: string, seq: number) {
      const events: ReadonlyArray<FollowEvent> = yield* sessions.events(sessionId, seq, FOLLOW_REST + 1)
      if (events.length <= FOLLOW_REST) return events
      const sent = events.slice(0, FOLLOW_REST)
      const last = sent.at(-1)
      const after = last === undefined || last.type === "stream.resume" ? seq : last.seq
      const resume: StreamResume = {
        type: "stream.resume",
        after,
        message: `the server is stopping: ${FOLLOW_REST} events were sent of those still to read; ` +
          `resume after event ${after} (Last-Event-ID or ?after=), here once restarted or on another server`
      }
      return [...sent, resume]
    })

    /**
     * A shutdown's first step, before the server drains: no turn starts from now on (503, the server is stopping),
     * every running turn is stopped and ended in its log as failed (Interrupted), which ends its stream with that
     * event, and only then are live readers let go, so they too read that end. Without it a turn ran on through the
     * drain and its stream was cut before its end was written.
     */
    const stop = Effect.fn("Luna.stop")(function* () {
      yield* Deferred.succeed(stopping, undefined)
      yield* starting.withPermits(EVERY_START)(FiberSet.clear(running))
      yield* Deferred.succeed(released, undefined)
    })

    /** The session as the chat shows it: every turn, or the page of them asked for. */
    const view = Effect.fn("Luna.view")(function* (who: Owner, sessionId: string, asked: TurnsAsked = {}) {
      const session = yield* sessions.get(who, sessionId)
      const page = yield* states.page(sessionId, asked)
      return viewOf(session, page.state, page.turns, page.moreBefore)
    })

    return { create: sessions.create, start, turn, turnEvents, follow, view, stop }
  }),
  dependencies: [WorkSessions.Default, SessionStates.Default, SessionLock.Default]
}) {}
