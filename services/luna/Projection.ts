import type { LunaEvent } from "../../schema/luna/Events.ts"
import type { SessionView, ToolPartView, TurnView } from "../../schema/luna/Projection.ts"
import type { WorkSession } from "../../schema/luna/Session.ts"
import type { SessionState } from "../../schema/luna/SessionState.ts"

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

export const EMPTY_STATE: SessionState = { last_seq: 0, stage: null, turns: [], context: [] }

/** `state` with `events` (the ones after it, in log order) folded in: its turns in the order they started. */
export const advance = (state: SessionState, events: ReadonlyArray<LunaEvent>): SessionState => {
  if (events.length === 0) return state
  const turns = new Map(state.turns.map((turn) => [turn.turn_id, turn]))
  let stage = state.stage
  let last = state.last_seq
  for (const event of events) {
    last = event.seq
    if (event.type === "stage.changed") stage = event.to
    const turn = turns.get(event.turn_id) ?? {
      turn_id: event.turn_id,
      parent_turn_id: event.parent_turn_id,
      variant: event.variant,
      status: "running",
      user: "",
      parts: [],
      text: null,
      outcome: null,
      metrics: null
    }
    turns.set(event.turn_id, applyTurn(turn, event))
  }
  return { last_seq: last, stage, turns: [...turns.values()], context: [...state.context, ...events.filter(inContext)] }
}

/** The chat view of a session from its folded log. */
export const viewOf = (session: WorkSession, state: SessionState): SessionView => ({
  session,
  stage: state.stage ?? session.stage,
  turns: state.turns,
  last_seq: state.last_seq
})

/** The chat view of a session: its turns folded from the whole log, in the order they started. */
export const project = (session: WorkSession, events: ReadonlyArray<LunaEvent>): SessionView =>
  viewOf(session, advance(EMPTY_STATE, events))
