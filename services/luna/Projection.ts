import type { LunaEvent } from "../../schema/luna/Events.ts"
import type { SessionView, ToolPartView, TurnView } from "../../schema/luna/Projection.ts"
import type { WorkSession } from "../../schema/luna/Session.ts"

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

/** The chat view of a session: its turns folded from the log, in the order they started. */
export const project = (session: WorkSession, events: ReadonlyArray<LunaEvent>): SessionView => {
  const turns = new Map<string, TurnView>()
  let stage = session.stage
  let last = 0
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
  return { session, stage, turns: [...turns.values()], last_seq: last }
}
