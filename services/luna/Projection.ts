import type { LunaEvent } from "../../schema/luna/Events.ts"
import type { SessionView, ToolPartView, TurnView } from "../../schema/luna/Projection.ts"
import type { WorkSession } from "../../schema/luna/Session.ts"
import type { SessionState, TurnState } from "../../schema/luna/SessionState.ts"

const applyTool = (parts: ReadonlyArray<ToolPartView>, event: Extract<LunaEvent, { type: "tool" }>): ReadonlyArray<ToolPartView> => {
  if (event.state === "input-available") {
    return [...parts, { tool_call_id: event.tool_call_id, tool_id: event.tool_id, state: event.state, input: event.input }]
  }
  return parts.map((part) => {
    if (part.tool_call_id !== event.tool_call_id) return part
    switch (event.state) {
      case "output-available":
        return { ...part, state: event.state, ref: event.ref, output: event.output }
      case "output-error":
        return { ...part, state: event.state, error: event.error }
      default:
        return { ...part, state: event.state }
    }
  })
}

const applyTurn = (turn: TurnView, event: LunaEvent): TurnView => {
  switch (event.type) {
    case "message.user":
      return { ...turn, user: event.text }
    case "tool":
      return { ...turn, parts: applyTool(turn.parts, event) }
    case "message.assistant":
      return { ...turn, text: event.text }
    case "turn.completed":
      return { ...turn, status: "completed", outcome: event.outcome, metrics: event.metrics }
    case "turn.failed":
      return { ...turn, status: "failed" }
    default:
      return turn
  }
}

/** The events a turn's context is compiled from (TurnInput.ts historyOf and resultsOf read no others). */
const inContext = (event: LunaEvent) =>
  event.type === "message.user" || event.type === "message.assistant" || (event.type === "tool" && event.state === "output-available")

export const EMPTY_STATE: SessionState = { last_seq: 0, stage: null, turns: 0 }

const started = (event: LunaEvent, ordinal: number): TurnState => ({
  turn_id: event.turn_id,
  ordinal,
  seq: event.seq,
  view: {
    turn_id: event.turn_id,
    parent_turn_id: event.parent_turn_id,
    variant: event.variant,
    status: "running",
    user: "",
    parts: [],
    text: null,
    outcome: null,
    metrics: null
  },
  context: []
})

/** A fold advanced: the session's small state, and the turns the events folded in touched, as they are now. */
export interface Advanced {
  readonly state: SessionState
  readonly touched: ReadonlyMap<string, TurnState>
}

/**
 * `state` with `events` (the ones after it, in log order) folded in. `known` holds, as of `state`, every turn
 * that started before it and that the events touch; a turn not in it is a new one, numbered after the others.
 */
export const advance = (state: SessionState, known: ReadonlyMap<string, TurnState>, events: ReadonlyArray<LunaEvent>): Advanced => {
  const touched = new Map(known)
  let stage = state.stage
  let last = state.last_seq
  let turns = state.turns
  for (const event of events) {
    last = event.seq
    if (event.type === "stage.changed") stage = event.to
    const turn = touched.get(event.turn_id) ?? started(event, turns++)
    touched.set(event.turn_id, {
      ...turn,
      seq: event.seq,
      view: applyTurn(turn.view, event),
      context: inContext(event) ? [...turn.context, event] : turn.context
    })
  }
  return { state: { last_seq: last, stage, turns }, touched }
}

/** What a turn's context is compiled from: every turn's share, in log order. */
export const contextOf = (turns: ReadonlyArray<ReadonlyArray<LunaEvent>>): ReadonlyArray<LunaEvent> =>
  turns.flat().sort((a, b) => a.seq - b.seq)

/** The chat view of a session from its folded log: `turns` in the order they started, and whether earlier ones were left out. */
export const viewOf = (
  session: WorkSession,
  state: SessionState,
  turns: ReadonlyArray<TurnView>,
  moreBefore = false
): SessionView => ({
  session,
  stage: state.stage ?? session.stage,
  turns,
  last_seq: state.last_seq,
  more_before: moreBefore
})

/** The chat view of a session: its turns folded from the whole log, in the order they started. */
export const project = (session: WorkSession, events: ReadonlyArray<LunaEvent>): SessionView => {
  const folded = advance(EMPTY_STATE, new Map(), events)
  return viewOf(session, folded.state, [...folded.touched.values()].map((turn) => turn.view))
}
