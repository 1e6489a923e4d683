import { Effect, Option } from "effect"
import type { ParseError } from "effect/ParseResult"
import { InvalidInput } from "../../schema/Errors.ts"
import type { LunaEvent } from "../../schema/luna/Events.ts"
import type { TurnView } from "../../schema/luna/Projection.ts"
import type { SessionState, TurnState } from "../../schema/luna/SessionState.ts"
import { advance, type Advanced, contextOf, EMPTY_STATE } from "./Projection.ts"
import { decodeContext, decodeView, type Part, type TurnRow, TurnRows } from "./TurnRows.ts"
import { WorkSessions } from "./WorkSessions.ts"

/** How many events a read folds past the snapshot before it saves a new one: what a read reads at most, besides the events written since the last. */
export const SAVE_EVERY = 100
const FOLD_PAGE = 5_000
/** Reads from the snapshot before one folds the whole log: rows saved meanwhile by another reader are not read as of this one's snapshot. */
const FROM_SNAPSHOT = 2

/** A page of a session's turns: the latest `turns` of them (every one when left out), before the turn `before` when given. */
export interface TurnsAsked {
  readonly turns?: number | undefined
  readonly before?: string | undefined
}

/** The session's log folded up to its last event: the state now, the turns touched since `base`, the snapshot it started from. */
interface Fold extends Advanced {
  readonly base: SessionState
}

/** How a read takes one part of a turn: from the fold's own, or decoded from its row. */
interface Reader<A> {
  readonly part: Part
  readonly pick: (turn: TurnState) => A
  readonly decode: (stored: string) => Effect.Effect<A, ParseError>
}
const VIEWS: Reader<TurnView> = { part: "view", pick: (turn) => turn.view, decode: decodeView }
const CONTEXTS: Reader<ReadonlyArray<LunaEvent>> = { part: "context", pick: (turn) => turn.context, decode: decodeContext }

/** Rows read are not a view as of the snapshot (saved past it by another reader, or deleted): the read starts again. */
const STALE = Option.none()

/**
 * Sessions' logs folded (their view and what a turn's context is compiled from), from a snapshot in the database
 * and the events written after it. The snapshot keeps what is small (the last seq, the stage, how many turns);
 * each turn is a row of its own, so a view decodes only the turns it shows, a turn decodes only the turns'
 * shares of the context, and a save writes only the turns its events touched. Events are numbered under the
 * session's lock, so the events a read sees are always a whole prefix of the log and any fold of it is the
 * same: readers save concurrently without coordinating, and no row ever goes back. A read trusts only rows as of
 * its snapshot (none saved past it, none missing); otherwise it reads again, and at last folds the whole log.
 * The log stays the authority: a snapshot or turn deleted, of another version or unreadable is folded again.
 */
export class SessionStates extends Effect.Service<SessionStates>()("brein/luna/SessionStates", {
  effect: Effect.gen(function* () {
    const sessions = yield* WorkSessions
    const rows = yield* TurnRows

    const saved = Effect.fn("SessionStates.saved")(function* (sessionId: string) {
      return yield* rows.snapshot(sessionId).pipe(
        Effect.map((state) => state ?? EMPTY_STATE),
        Effect.catchTag("ParseError", (error) =>
          Effect.as(
            Effect.logWarning("a session's snapshot could not be read: it is folded again from the log", error.message).pipe(
              Effect.annotateLogs({ sessionId })
            ),
            EMPTY_STATE
          ))
      )
    })

    /** The turns `events` touch, as of `base`: from their rows, none of them saved past it, none of those started before it missing. */
    const touched = Effect.fn("SessionStates.touched")(
      function* (sessionId: string, base: SessionState, known: ReadonlyMap<string, TurnState>, events: ReadonlyArray<LunaEvent>) {
        const ids = [...new Set(events.map((event) => event.turn_id))].filter((id) => !known.has(id))
        if (base.last_seq === 0 || ids.length === 0) return Option.some(new Map<string, TurnState>())
        const turns = new Map<string, TurnState>()
        for (const row of yield* rows.byIds(sessionId, ids)) {
          if (row.seq > base.last_seq) return STALE
          const parts = yield* Effect.option(Effect.all({ view: decodeView(row.view), context: decodeContext(row.context) }))
          if (Option.isNone(parts)) return STALE
          turns.set(row.turnId, { turn_id: row.turnId, ordinal: row.ordinal, seq: row.seq, ...parts.value })
        }
        const missing = ids.filter((id) => !turns.has(id))
        if ((yield* rows.inLog(sessionId, missing, base.last_seq)).length > 0) return STALE
        return Option.some(turns)
      }
    )

    const foldFrom = (sessionId: string, base: SessionState, at: Advanced): Effect.Effect<Option.Option<Advanced>> =>
      Effect.flatMap(
        sessions.events(sessionId, at.state.last_seq, FOLD_PAGE),
        (events) =>
          Effect.flatMap(touched(sessionId, base, at.touched, events), (known) => {
            if (Option.isNone(known)) return Effect.succeed(STALE)
            const next = advance(at.state, new Map([...at.touched, ...known.value]), events)
            return events.length < FOLD_PAGE ? Effect.succeed(Option.some(next)) : foldFrom(sessionId, base, next)
          })
      )

    /** The log folded up to its last event, from the snapshot (or from the start, `whole`); saved again past SAVE_EVERY events. */
    const fold = Effect.fn("SessionStates.fold")(function* (sessionId: string, whole: boolean) {
      const base = whole ? EMPTY_STATE : yield* saved(sessionId)
      const folded = yield* foldFrom(sessionId, base, { state: base, touched: new Map() })
      if (Option.isNone(folded)) return Option.none<Fold>()
      const read = folded.value.state.last_seq - base.last_seq
      yield* Effect.annotateCurrentSpan({ "luna.snapshot_seq": base.last_seq, "luna.events_read": read })
      if (read >= SAVE_EVERY) yield* rows.save(sessionId, folded.value.state, [...folded.value.touched.values()])
      return Option.some({ base, ...folded.value })
    })

    /**
     * The `part` of the turns numbered `from` to `to` (excluded), in the order they started: of those the fold
     * touched as it has them, of the others from their rows as of its snapshot, nothing else decoded.
     */
    const turnsOf = Effect.fn("SessionStates.turns")(
      function*<A> (sessionId: string, at: Fold, from: number, to: number, reader: Reader<A>) {
        const byOrdinal = new Map([...at.touched.values()].map((turn) => [turn.ordinal, turn]))
        const stored = new Map<number, TurnRow>()
        for (const row of yield* rows.byOrdinals(sessionId, from, Math.min(to, at.base.turns), reader.part)) stored.set(row.ordinal, row)
        const found: Array<A> = []
        let decoded = 0
        for (let ordinal = from; ordinal < to; ordinal++) {
          const turn = byOrdinal.get(ordinal)
          if (turn !== undefined) {
            found.push(reader.pick(turn))
            continue
          }
          const row = stored.get(ordinal)
          if (row === undefined || row.seq > at.base.last_seq) return Option.none<ReadonlyArray<A>>()
          const value = yield* Effect.option(reader.decode(row.stored))
          if (Option.isNone(value)) return Option.none<ReadonlyArray<A>>()
          decoded += 1
          found.push(value.value)
        }
        yield* Effect.annotateCurrentSpan({ "luna.turn_part": reader.part, "luna.turns_decoded": decoded })
        return Option.some<ReadonlyArray<A>>(found)
      }
    )

    /** Where a page ends: before the turn asked for, or after the last; a turn this session never had is refused by name. */
    const endOf = Effect.fn("SessionStates.endOf")(function* (sessionId: string, at: Fold, before: string | undefined) {
      if (before === undefined) return Option.some(at.state.turns)
      const turn = at.touched.get(before)
      if (turn !== undefined) return Option.some(turn.ordinal)
      const ordinal = yield* rows.ordinalOf(sessionId, before)
      if (ordinal !== undefined && ordinal < at.base.turns) return Option.some(ordinal)
      if ((yield* rows.inLog(sessionId, [before], at.state.last_seq)).length > 0) return Option.none<number>()
      return yield* InvalidInput.of([{ path: "before", message: `is not a turn of this session, got ${JSON.stringify(before)}` }])
    })

    /** Reads again while rows read are not as of the snapshot; the last time, from the whole log. */
    const settled = <A, E>(sessionId: string, read: (at: Fold) => Effect.Effect<Option.Option<A>, E>) => {
      const attempt = (left: number): Effect.Effect<A, E> =>
        Effect.flatMap(
          fold(sessionId, left === 0),
          (at) =>
            Effect.flatMap(Option.isNone(at) ? Effect.succeed(Option.none<A>()) : read(at.value), (answer) => {
              if (Option.isSome(answer)) return Effect.succeed(answer.value)
              return left === 0
                ? Effect.dieMessage("a session's fold from its whole log was not whole")
                : Effect.zipRight(Effect.logDebug("a session's turns changed under a read: it reads them again"), attempt(left - 1))
            })
        )
      return attempt(FROM_SNAPSHOT)
    }

    /** A page of the session's view: its state, the turns asked for in the order they started, and whether earlier ones were left out. */
    const page = Effect.fn("SessionStates.page")(function* (sessionId: string, asked: TurnsAsked) {
      return yield* settled(sessionId, (at) =>
        Effect.gen(function* () {
          const end = yield* endOf(sessionId, at, asked.before)
          if (Option.isNone(end)) return Option.none()
          const start = asked.turns === undefined ? 0 : Math.max(0, end.value - asked.turns)
          const turns = yield* turnsOf(sessionId, at, start, end.value, VIEWS)
          return Option.map(turns, (shown) => ({ state: at.state, turns: shown, moreBefore: start > 0 }))
        }))
    })

    /** What a turn's context is compiled from, as the whole log gives it: the messages and tool results, in log order. */
    const context = Effect.fn("SessionStates.context")(function* (sessionId: string) {
      return yield* settled(sessionId, (at) => Effect.map(turnsOf(sessionId, at, 0, at.state.turns, CONTEXTS), Option.map(contextOf)))
    })

    return { page, context }
  }),
  dependencies: [WorkSessions.Default, TurnRows.Default]
}) {}
