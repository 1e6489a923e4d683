import { Schema } from "effect"
import { Stage } from "../tools/Definition.ts"
import { ToolError, ToolInput, ToolPart, ToolState } from "./Events.ts"
import { Outcome, TurnMetrics } from "./Outcome.ts"
import { WorkSession } from "./Session.ts"

/** A tool part as the chat shows it: its latest state, and what it came to. */
export const ToolPartView = Schema.Struct({
  ...ToolPart,
  state: ToolState,
  input: ToolInput,
  ref: Schema.optionalWith(Schema.String, { exact: true }),
  output: Schema.optionalWith(Schema.Unknown, { exact: true }),
  error: Schema.optionalWith(ToolError, { exact: true })
})
export type ToolPartView = typeof ToolPartView.Type

export const TurnView = Schema.Struct({
  turn_id: Schema.String,
  parent_turn_id: Schema.NullOr(Schema.String),
  variant: Schema.Int,
  status: Schema.Literal("running", "completed", "failed"),
  user: Schema.String,
  parts: Schema.Array(ToolPartView),
  text: Schema.NullOr(Schema.String).annotations({ description: "What Luna said, as displayed" }),
  outcome: Schema.NullOr(Outcome),
  metrics: Schema.NullOr(TurnMetrics)
})
export type TurnView = typeof TurnView.Type

/** The chat view of a session, projected from its log. */
export const SessionView = Schema.Struct({
  session: WorkSession,
  stage: Stage,
  turns: Schema.Array(TurnView),
  last_seq: Schema.Int.annotations({ description: "The seq of the last event folded in: resume the event stream after it" }),
  more_before: Schema.Boolean.annotations({
    description:
      "Whether turns earlier than the first one shown were left out (a page asked with ?turns=): ask for them with ?before=<its turn_id>"
  })
}).annotations({ identifier: "SessionView" })
export type SessionView = typeof SessionView.Type
