import { Schema } from "effect"
import { Stage } from "../tools/Definition.ts"
import { LunaEvent } from "./Events.ts"
import { TurnView } from "./Projection.ts"

/**
 * A session's log folded up to `last_seq`, the small part: kept as a snapshot that reads advance with the
 * events after it, its turns in rows of their own (TurnState). The log stays the authority, so a snapshot
 * and its turns can be dropped at any time and are folded again from the log.
 */
export const SessionState = Schema.Struct({
  last_seq: Schema.Int.annotations({ description: "The seq of the last event folded in" }),
  stage: Schema.NullOr(Stage).annotations({ description: "The latest stage.changed's stage; null when none" }),
  turns: Schema.Int.annotations({ description: "How many turns had started by last_seq" })
}).annotations({ identifier: "SessionState" })
export type SessionState = typeof SessionState.Type

/** The events of a turn its successors' context is compiled from, in log order: messages and the tool results. */
export const TurnContext = Schema.Array(LunaEvent)

/** One turn of the fold: its view and its share of the context, up to `seq`, the last of its events folded in. */
export const TurnState = Schema.Struct({
  turn_id: Schema.String,
  ordinal: Schema.Int.annotations({ description: "Its place among the session's turns in the order they started, from 0" }),
  seq: Schema.Int,
  view: TurnView,
  context: TurnContext
})
export type TurnState = typeof TurnState.Type
