import { Schema } from "effect"
import { Stage } from "../tools/Definition.ts"
import { LunaEvent } from "./Events.ts"
import { TurnView } from "./Projection.ts"

/**
 * A session's log folded up to `last_seq`: what its view and a turn's context are compiled from. Kept as a
 * snapshot that reads advance with the events after it; the log stays the authority, so a snapshot can be
 * dropped at any time and is folded again from the log.
 */
export const SessionState = Schema.Struct({
  last_seq: Schema.Int.annotations({ description: "The seq of the last event folded in" }),
  stage: Schema.NullOr(Stage).annotations({ description: "The latest stage.changed's stage; null when none" }),
  turns: Schema.Array(TurnView),
  context: Schema.Array(LunaEvent).annotations({
    description: "The events a turn's context is compiled from, in log order: messages and the tool results"
  })
}).annotations({ identifier: "SessionState" })
export type SessionState = typeof SessionState.Type
