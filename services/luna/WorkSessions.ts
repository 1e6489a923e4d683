import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, PubSub, Queue, Schema, Stream } from "effect"
import { isSessionId } from "../../schema/Ids.ts"
import { type EventBody, isTurnEnd, LunaEvent } from "../../schema/luna/Events.ts"
import { type WorkSession, WorkSessionNotFound } from "../../schema/luna/Session.ts"
import type { Principal } from "../../schema/Principal.ts"
import { Stage } from "../../schema/tools/Definition.ts"
import { newId } from "../Ids.ts"

const SessionRow = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  owner: Schema.String,
  title: Schema.NullOr(Schema.String),
  stage: Stage,
  createdAt: Schema.DateFromSelf
})
const decodeSessions = Schema.decodeUnknown(Schema.Array(SessionRow))

const EventRow = Schema.Struct({
  seq: Schema.Int,
  sessionId: Schema.String,
  turnId: Schema.String,
  parentTurnId: Schema.NullOr(Schema.String),
  variant: Schema.Int,
  body: Schema.String,
  at: Schema.DateFromSelf
})
const decodeEventRows = Schema.decodeUnknown(Schema.Array(EventRow))
const PlaceRow = Schema.Struct({ turnId: Schema.String, parentTurnId: Schema.NullOr(Schema.String), variant: Schema.Int })
const decodePlaces = Schema.decodeUnknown(Schema.Array(PlaceRow))
const decodeEvent = Schema.decodeUnknown(LunaEvent)
const encodeBody = Schema.encodeSync(Schema.parseJson(Schema.Unknown))

const toSession = (row: typeof SessionRow.Type): WorkSession => ({
  id: row.id,
  workspace_id: row.workspaceId,
  owner: row.owner,
  title: row.title,
  stage: row.stage,
  created_at: row.createdAt.toISOString()
})

/** Where an event sits: its turn, that turn's parent and its variant. */
export interface TurnPlace {
  readonly turnId: string
  readonly parentTurnId: string | null
  readonly variant: number
}

/** Who asks: the workspace and the owner (a user or an API key) a session belongs to. */
export interface Owner {
  readonly principal: Principal
  readonly owner: string
}

/** How long a reader waits for a new event before it looks at the log again (another process may have written it). */
const POLL = "1 second"
const PAGE = 200

/**
 * Luna's Work Sessions: the sessions and their append-only event log, the authority the chat view is
 * projected from. Events are numbered per session under the session row's lock; readers tail the log
 * (woken at once by writers in this process, and every second for writers in others).
 */
export class WorkSessions extends Effect.Service<WorkSessions>()("brein/luna/WorkSessions", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const appended = yield* PubSub.unbounded<string>()

    const create = Effect.fn("WorkSessions.create")(
      function* (who: Owner, options: { readonly title?: string | undefined; readonly stage?: Stage | undefined }) {
        const id = yield* newId("ses")
        const at = new Date(yield* Clock.currentTimeMillis)
        const rows = yield* sql`INSERT INTO work_sessions (id, workspace_id, owner, title, stage, created_at)
          VALUES (${id}, ${who.principal.workspaceId}, ${who.owner}, ${options.title ?? null}, ${options.stage ?? "buscando"}, ${at})
          RETURNING id, workspace_id, owner, title, stage, created_at`.pipe(Effect.flatMap(decodeSessions), Effect.orDie)
        const row = rows[0]
        if (row === undefined) return yield* Effect.dieMessage("the new session was not returned")
        return toSession(row)
      }
    )

    /** The session, when it belongs to this owner in this workspace; any other is not found. */
    const get = Effect.fn("WorkSessions.get")(function* (who: Owner, sessionId: string) {
      if (!isSessionId(sessionId)) return yield* WorkSessionNotFound.of(sessionId)
      const rows = yield* sql`SELECT id, workspace_id, owner, title, stage, created_at FROM work_sessions
        WHERE id = ${sessionId} AND workspace_id = ${who.principal.workspaceId} AND owner = ${who.owner}`
        .pipe(Effect.flatMap(decodeSessions), Effect.orDie)
      return yield* Option.match(Option.fromNullable(rows[0]), {
        onNone: () => Effect.fail(WorkSessionNotFound.of(sessionId)),
        onSome: (row) => Effect.succeed(toSession(row))
      })
    })

    /** Appends events in order, numbered after the session's last; a stage.changed also moves the session's stage. */
    const append = Effect.fn("WorkSessions.append")(
      function* (sessionId: string, place: TurnPlace, bodies: ReadonlyArray<EventBody>) {
        const at = new Date(yield* Clock.currentTimeMillis)
        const events = yield* sql.withTransaction(Effect.gen(function* () {
          yield* sql`SELECT id FROM work_sessions WHERE id = ${sessionId} FOR UPDATE`
          const last = yield* sql<{ readonly last: number }>`SELECT COALESCE(max(seq), 0)::int AS last
            FROM work_session_events WHERE session_id = ${sessionId}`
          let seq = last[0]?.last ?? 0
          const written: Array<LunaEvent> = []
          for (const body of bodies) {
            seq += 1
            yield* sql`INSERT INTO work_session_events (session_id, seq, turn_id, parent_turn_id, variant, type, body, at)
              VALUES (${sessionId}, ${seq}, ${place.turnId}, ${place.parentTurnId}, ${place.variant}, ${body.type}, ${
              encodeBody(body)
            }, ${at})`
            if (body.type === "stage.changed") yield* sql`UPDATE work_sessions SET stage = ${body.to} WHERE id = ${sessionId}`
            written.push({
              ...body,
              seq,
              session_id: sessionId,
              turn_id: place.turnId,
              parent_turn_id: place.parentTurnId,
              variant: place.variant,
              at: at.toISOString()
            })
          }
          return written
        })).pipe(Effect.orDie)
        yield* PubSub.publish(appended, sessionId)
        return events
      }
    )

    const page = Effect.fn("WorkSessions.events")(function* (sessionId: string, after: number, limit: number = PAGE) {
      const rows = yield* sql`SELECT seq, session_id, turn_id, parent_turn_id, variant, body, at FROM work_session_events
        WHERE session_id = ${sessionId} AND seq > ${after} ORDER BY seq LIMIT ${limit}`
        .pipe(Effect.flatMap(decodeEventRows), Effect.orDie)
      return yield* Effect.forEach(rows, (row) =>
        decodeEvent({
          ...(JSON.parse(row.body) as object),
          seq: row.seq,
          session_id: row.sessionId,
          turn_id: row.turnId,
          parent_turn_id: row.parentTurnId,
          variant: row.variant,
          at: row.at.toISOString()
        }).pipe(Effect.orDie))
    })

    /**
     * The session's events after `after`, as they are written, until `until` holds for one (that
     * event included). Subscribes before it reads, so no event written meanwhile is missed.
     */
    const tail = (sessionId: string, after: number, until: (event: LunaEvent) => boolean = isTurnEnd) =>
      Stream.unwrapScoped(Effect.map(PubSub.subscribe(appended), (wakeups) => {
        const wait = Queue.take(wakeups).pipe(Effect.repeat({ until: (id) => id === sessionId }), Effect.timeoutOption(POLL))
        return Stream.paginateEffect({ cursor: after, done: false }, (state) =>
          Effect.gen(function* () {
            if (state.done) return [[] as ReadonlyArray<LunaEvent>, Option.none()] as const
            const events = yield* page(sessionId, state.cursor)
            if (events.length === 0) {
              yield* wait
              return [events, Option.some(state)] as const
            }
            const end = events.findIndex(until)
            const shown = end === -1 ? events : events.slice(0, end + 1)
            const cursor = shown[shown.length - 1]?.seq ?? state.cursor
            return [shown as ReadonlyArray<LunaEvent>, Option.some({ cursor, done: end !== -1 })] as const
          })).pipe(Stream.flattenIterables)
      }))

    /** The turns of the session's log that started and never ended (neither completed nor failed), in log order. */
    const unended = Effect.fn("WorkSessions.unended")(function* (sessionId: string) {
      const rows = yield* sql`SELECT started.turn_id, started.parent_turn_id, started.variant FROM work_session_events started
        WHERE started.session_id = ${sessionId} AND started.type = 'turn.started' AND NOT EXISTS (
          SELECT 1 FROM work_session_events ended WHERE ended.session_id = started.session_id
            AND ended.turn_id = started.turn_id AND ended.type IN ('turn.completed', 'turn.failed'))
        ORDER BY started.seq`.pipe(Effect.flatMap(decodePlaces), Effect.orDie)
      return rows satisfies ReadonlyArray<TurnPlace>
    })

    return { create, get, append, events: page, tail, unended }
  })
}) {}
