import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { SessionState } from "../../schema/luna/SessionState.ts"
import { advance, EMPTY_STATE } from "./Projection.ts"
import { WorkSessions } from "./WorkSessions.ts"

/** The shape of a snapshot: a change to the fold (Projection.ts) or to SessionState raises it, and older snapshots are folded again. */
export const STATE_VERSION = 1
/** How many events a read folds past the snapshot before it saves a new one: what a read reads at most, besides the events written since the last. */
export const SAVE_EVERY = 100
const FOLD_PAGE = 5_000

const StateJson = Schema.parseJson(SessionState)
const decodeState = Schema.decodeUnknown(StateJson)
const encodeState = Schema.encode(StateJson)
const SnapshotRow = Schema.Struct({ state: Schema.String })
const decodeRows = Schema.decodeUnknown(Schema.Array(SnapshotRow))

/**
 * Sessions' logs folded (their view and what a turn's context is compiled from), from a snapshot in the
 * database and the events written after it: a read reads one row and the events since the last snapshot, however
 * long the session. Events are numbered under the session's lock, so the events a read sees are always a whole prefix
 * of the log and any fold of it is the same: readers save snapshots concurrently without coordinating, and a
 * snapshot never goes back. The log stays the authority: a snapshot deleted, of another version or unreadable
 * is folded again from the log.
 */
export class SessionStates extends Effect.Service<SessionStates>()("brein/luna/SessionStates", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const sessions = yield* WorkSessions

    const saved = Effect.fn("SessionStates.saved")(function* (sessionId: string) {
      const rows = yield* sql`SELECT state FROM work_session_states WHERE session_id = ${sessionId} AND version = ${STATE_VERSION}`
        .pipe(Effect.flatMap(decodeRows), Effect.orDie)
      const row = rows[0]
      if (row === undefined) return EMPTY_STATE
      return yield* decodeState(row.state).pipe(
        Effect.catchTag("ParseError", (error) =>
          Effect.as(
            Effect.logWarning("a session's snapshot could not be read: it is folded again from the log", error.message).pipe(
              Effect.annotateLogs({ sessionId })
            ),
            EMPTY_STATE
          ))
      )
    })

    const save = Effect.fn("SessionStates.save")(function* (sessionId: string, state: SessionState) {
      const text = yield* Effect.orDie(encodeState(state))
      yield* sql`INSERT INTO work_session_states (session_id, version, seq, state)
        VALUES (${sessionId}, ${STATE_VERSION}, ${state.last_seq}, ${text})
        ON CONFLICT (session_id) DO UPDATE SET version = excluded.version, seq = excluded.seq, state = excluded.state
        WHERE work_session_states.seq < excluded.seq OR work_session_states.version <> excluded.version`.pipe(Effect.orDie)
    })

    const foldFrom = (sessionId: string, state: SessionState): Effect.Effect<SessionState> =>
      Effect.flatMap(sessions.events(sessionId, state.last_seq, FOLD_PAGE), (events) => {
        const next = advance(state, events)
        return events.length < FOLD_PAGE ? Effect.succeed(next) : foldFrom(sessionId, next)
      })

    /** The session's log folded up to its last event: the snapshot, advanced by the events after it (saved again past SAVE_EVERY). */
    const current = Effect.fn("SessionStates.current")(function* (sessionId: string) {
      const from = yield* saved(sessionId)
      const state = yield* foldFrom(sessionId, from)
      const read = state.last_seq - from.last_seq
      yield* Effect.annotateCurrentSpan({ "luna.snapshot_seq": from.last_seq, "luna.events_read": read })
      if (read >= SAVE_EVERY) yield* save(sessionId, state)
      return state
    })

    return { current }
  }),
  dependencies: [WorkSessions.Default]
}) {}
