import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import type { LunaEvent } from "../../schema/luna/Events.ts"
import { WorkSessions } from "../../services/luna/WorkSessions.ts"

/** The events each turn of a long log has: started, the user's message, a tool's call and result, Luna's answer, completed. */
export const EVENTS_PER_TURN = 6

/**
 * A session's log made long in one statement: `turns` completed turns after its last event, each with a cited
 * result (the first one's is the Mercado coverage, ref mercado) and a stage change every 1,000th turn.
 */
export const appendTurns = (sessionId: string, turns: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const at = new Date(yield* Clock.currentTimeMillis)
    yield* sql`INSERT INTO work_session_events (session_id, seq, turn_id, parent_turn_id, variant, type, body, at)
      SELECT ${sessionId}, last.seq + (t - 1) * ${EVENTS_PER_TURN}::int + e.k, 'turn_long' || (last.seq + t), NULL, 1, e.type, e.body, ${at}
      FROM (SELECT COALESCE(max(seq), 0) AS seq FROM work_session_events WHERE session_id = ${sessionId}) last,
        generate_series(1, ${turns}::int) t,
        LATERAL (SELECT CASE WHEN last.seq = 0 AND t = 1 THEN 'mercado' ELSE 'r' || (last.seq + t) END AS ref) r,
        LATERAL (VALUES
          (1, 'turn.started', json_build_object('type', 'turn.started', 'stage', 'prospectando')::text),
          (2, CASE WHEN t % 1000 = 0 THEN 'stage.changed' ELSE 'message.user' END, CASE WHEN t % 1000 = 0
            THEN json_build_object('type', 'stage.changed', 'from', 'prospectando', 'to', 'con_lista', 'reason', 'list_save answered')::text
            ELSE json_build_object('type', 'message.user', 'text', 'pregunta ' || t)::text END),
          (3, 'tool', json_build_object('type', 'tool', 'state', 'input-available', 'tool_call_id', 'call_' || t,
            'tool_id', 'companies_search', 'input', json_build_object('query', 'q' || t))::text),
          (4, 'tool', json_build_object('type', 'tool', 'state', 'output-available', 'tool_call_id', 'call_' || t,
            'tool_id', 'companies_search', 'ref', r.ref, 'output', json_build_object('total', t), 'request_id', 'req_' || t,
            'audit_status', 'ok')::text),
          (5, 'message.assistant', json_build_object('type', 'message.assistant', 'text', 'Hay ' || t || '.',
            'narration', 'Hay ' || t || ' [[ref:' || r.ref || ']].', 'attempt', 1)::text),
          (6, 'turn.completed', json_build_object('type', 'turn.completed',
            'outcome', json_build_object('kind', 'responder', 'text', 'Hay ' || t || '.', 'partial', false),
            'metrics', json_build_object('steps', 1, 'tool_calls', 1, 'belt_violations', 0, 'attempts', json_build_array(),
              'models', json_build_array('scripted')))::text)
        ) AS e(k, type, body)`.pipe(Effect.orDie)
  })

/** Every event of the session's log, read page by page. */
export const wholeLog = (sessionId: string) =>
  Effect.flatMap(WorkSessions, (sessions) => {
    const from = (after: number, read: ReadonlyArray<LunaEvent>): Effect.Effect<ReadonlyArray<LunaEvent>> =>
      Effect.flatMap(sessions.events(sessionId, after, 10_000), (page) => {
        const last = page.at(-1)
        return last === undefined ? Effect.succeed(read) : from(last.seq, [...read, ...page])
      })
    return from(0, [])
  })
