import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { TurnView } from "../../schema/luna/Projection.ts"
import { SessionState, TurnContext, type TurnState } from "../../schema/luna/SessionState.ts"

/** The shape of a snapshot and its turns: a change to the fold (Projection.ts) or to SessionState raises it, and older ones are folded again. */
export const STATE_VERSION = 2
/** How many turn rows one statement writes. */
const WRITE_BATCH = 500

const StateJson = Schema.parseJson(SessionState)
const decodeState = Schema.decodeUnknown(StateJson)
const encodeState = Schema.encode(StateJson)
const encodeView = Schema.encode(Schema.parseJson(TurnView))
const encodeContext = Schema.encode(Schema.parseJson(TurnContext))
export const decodeView = Schema.decodeUnknown(Schema.parseJson(TurnView))
export const decodeContext = Schema.decodeUnknown(Schema.parseJson(TurnContext))

const decodeSnapshots = Schema.decodeUnknown(Schema.Array(Schema.Struct({ state: Schema.String })))
const TurnRow = Schema.Struct({ turnId: Schema.String, ordinal: Schema.Int, seq: Schema.Int, stored: Schema.String })
export type TurnRow = typeof TurnRow.Type
const decodeTurnRows = Schema.decodeUnknown(Schema.Array(TurnRow))
const WholeRow = Schema.Struct({ turnId: Schema.String, ordinal: Schema.Int, seq: Schema.Int, view: Schema.String, context: Schema.String })
export type WholeRow = typeof WholeRow.Type
const decodeWholeRows = Schema.decodeUnknown(Schema.Array(WholeRow))
const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.Struct({ turnId: Schema.String })))
const decodeOrdinals = Schema.decodeUnknown(Schema.Array(Schema.Struct({ ordinal: Schema.Int })))

/** Which part of a turn row a read decodes: its view, or its share of the context. */
export type Part = "view" | "context"

/**
 * Where a session's fold is kept: its snapshot (one small row, work_session_states) and its turns (a row each,
 * work_session_turns). Rows are written together in one transaction, and none ever goes back: a row is
 * replaced only by one of a later seq (or of another version).
 */
export class TurnRows extends Effect.Service<TurnRows>()("brein/luna/TurnRows", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The snapshot's text, when there is one of this version. */
    const snapshot = Effect.fn("TurnRows.snapshot")(function* (sessionId: string) {
      const rows = yield* sql`SELECT state FROM work_session_states WHERE session_id = ${sessionId} AND version = ${STATE_VERSION}`
        .pipe(Effect.flatMap(decodeSnapshots), Effect.orDie)
      return rows[0] === undefined ? undefined : yield* decodeState(rows[0].state)
    })

    const column = (part: Part) => sql.literal(part === "view" ? "view" : "context")

    /** The rows of these turns, whole and undecoded: the turns a fold advances. */
    const byIds = Effect.fn("TurnRows.byIds")(function* (sessionId: string, turnIds: ReadonlyArray<string>) {
      if (turnIds.length === 0) return []
      return yield* sql`SELECT turn_id, ordinal, seq, view, context FROM work_session_turns
        WHERE session_id = ${sessionId} AND version = ${STATE_VERSION} AND turn_id IN ${sql.in(turnIds)}`
        .pipe(Effect.flatMap(decodeWholeRows), Effect.orDie)
    })

    /** The rows of the turns numbered from `from` up to `to` (excluded), in the order they started. */
    const byOrdinals = Effect.fn("TurnRows.byOrdinals")(function* (sessionId: string, from: number, to: number, part: Part) {
      if (to <= from) return []
      return yield* sql`SELECT turn_id, ordinal, seq, ${column(part)} AS stored FROM work_session_turns
        WHERE session_id = ${sessionId} AND version = ${STATE_VERSION} AND ordinal >= ${from} AND ordinal < ${to} ORDER BY ordinal`
        .pipe(Effect.flatMap(decodeTurnRows), Effect.orDie)
    })

    /** A turn's place among the session's turns, from its row. */
    const ordinalOf = Effect.fn("TurnRows.ordinalOf")(function* (sessionId: string, turnId: string) {
      const rows = yield* sql`SELECT ordinal FROM work_session_turns
        WHERE session_id = ${sessionId} AND version = ${STATE_VERSION} AND turn_id = ${turnId}`
        .pipe(Effect.flatMap(decodeOrdinals), Effect.orDie)
      return rows[0]?.ordinal
    })

    /** Those of these turns that have an event in the log up to `seq`. */
    const inLog = Effect.fn("TurnRows.inLog")(function* (sessionId: string, turnIds: ReadonlyArray<string>, seq: number) {
      if (turnIds.length === 0) return []
      const rows = yield* sql`SELECT DISTINCT turn_id FROM work_session_events
        WHERE session_id = ${sessionId} AND turn_id IN ${sql.in(turnIds)} AND seq <= ${seq}`
        .pipe(Effect.flatMap(decodeIds), Effect.orDie)
      return rows.map((row) => row.turnId)
    })

    /** The snapshot and the turns the fold touched, in one transaction: a row older than the one kept is not written. */
    const save = Effect.fn("TurnRows.save")(function* (sessionId: string, state: SessionState, turns: ReadonlyArray<TurnState>) {
      const text = yield* Effect.orDie(encodeState(state))
      const rows = yield* Effect.forEach(
        turns,
        (turn) =>
          Effect.all({ view: encodeView(turn.view), context: encodeContext(turn.context) }).pipe(
            Effect.orDie,
            Effect.map((encoded) => ({
              sessionId,
              turnId: turn.turn_id,
              version: STATE_VERSION,
              ordinal: turn.ordinal,
              seq: turn.seq,
              ...encoded
            }))
          )
      )
      yield* sql.withTransaction(Effect.gen(function* () {
        yield* sql`INSERT INTO work_session_states (session_id, version, seq, state)
          VALUES (${sessionId}, ${STATE_VERSION}, ${state.last_seq}, ${text})
          ON CONFLICT (session_id) DO UPDATE SET version = excluded.version, seq = excluded.seq, state = excluded.state
          WHERE work_session_states.seq < excluded.seq OR work_session_states.version <> excluded.version`
        for (let at = 0; at < rows.length; at += WRITE_BATCH) {
          yield* sql`INSERT INTO work_session_turns ${sql.insert(rows.slice(at, at + WRITE_BATCH))}
            ON CONFLICT (session_id, turn_id) DO UPDATE SET version = excluded.version, ordinal = excluded.ordinal,
              seq = excluded.seq, view = excluded.view, context = excluded.context
            WHERE work_session_turns.seq < excluded.seq OR work_session_turns.version <> excluded.version`
        }
      })).pipe(Effect.orDie)
    })

    return { snapshot, byIds, byOrdinals, ordinalOf, inLog, save }
  })
}) {}
