import { Schema } from "effect"
import { Stage } from "../tools/Definition.ts"
import { Outcome, TurnMetrics } from "./Outcome.ts"

/** Every event of a Work Session carries where it sits: its turn, that turn's parent and variant, and its place in the log. */
const Place = {
  seq: Schema.Int.annotations({ description: "The event's number in its session's log, from 1" }),
  session_id: Schema.String,
  turn_id: Schema.String,
  parent_turn_id: Schema.NullOr(Schema.String),
  variant: Schema.Int.annotations({ description: "1 for a turn; a regenerated sibling has the same parent_turn_id and a new variant" }),
  at: Schema.String.annotations({ description: "When it was written (ISO-8601)" })
}

/** Which call a tool part is, and of which tool. */
export const ToolPart = {
  tool_call_id: Schema.String,
  tool_id: Schema.String.annotations({
    description:
      "The registry id of the tool the model called, on the stage's belt or not; a function name no tool has, as the model wrote it"
  })
}

export const ToolInput = Schema.Unknown.annotations({
  description: "The input as the model sent it: its JSON, or the text itself when that is not JSON"
})

/** The states of a tool part, one to one with the Vercel AI SDK's. */
export const ToolState = Schema.Literal(
  "input-available",
  "approval-requested",
  "approval-responded",
  "output-available",
  "output-error",
  "output-denied"
)
export type ToolState = typeof ToolState.Type

export const ToolError = Schema.Struct({ tag: Schema.String, message: Schema.String })

/** What an event says, without its place: the loop writes bodies, the log numbers them. */
export const EventBody = Schema.Union(
  Schema.Struct({ type: Schema.Literal("turn.started"), stage: Stage }),
  Schema.Struct({ type: Schema.Literal("message.user"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("stage.changed"), from: Stage, to: Stage, reason: Schema.String }),
  Schema.Struct({ type: Schema.Literal("tool"), state: Schema.Literal("input-available"), ...ToolPart, input: ToolInput }),
  Schema.Struct({ type: Schema.Literal("tool"), state: Schema.Literal("approval-requested"), ...ToolPart, approval_id: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("tool"),
    state: Schema.Literal("approval-responded"),
    ...ToolPart,
    approval_id: Schema.String,
    approved: Schema.Boolean
  }),
  Schema.Struct({
    type: Schema.Literal("tool"),
    state: Schema.Literal("output-available"),
    ...ToolPart,
    ref: Schema.String.annotations({ description: "What the narration cites this result by: [[ref:…]]" }),
    output: Schema.Unknown,
    request_id: Schema.String,
    audit_status: Schema.String
  }),
  Schema.Struct({ type: Schema.Literal("tool"), state: Schema.Literal("output-error"), ...ToolPart, error: ToolError }),
  Schema.Struct({ type: Schema.Literal("tool"), state: Schema.Literal("output-denied"), ...ToolPart, reason: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("message.assistant"),
    text: Schema.String.annotations({ description: "As displayed: ref tokens stripped" }),
    narration: Schema.String.annotations({ description: "As the model wrote it, with its [[ref:…]] tokens" }),
    attempt: Schema.Int
  }),
  Schema.Struct({ type: Schema.Literal("turn.completed"), outcome: Outcome, metrics: TurnMetrics }),
  Schema.Struct({ type: Schema.Literal("turn.failed"), error: ToolError })
)
export type EventBody = typeof EventBody.Type

export const LunaEvent = Schema.extend(Schema.Struct(Place), EventBody).annotations({ identifier: "LunaEvent" })
export type LunaEvent = typeof LunaEvent.Type

export const isTurnEnd = (event: { readonly type: string }) => event.type === "turn.completed" || event.type === "turn.failed"

/**
 * The last frame of a follow stream the server's stop cut short: the events after `after` were not sent. The
 * client resumes with `Last-Event-ID: after` (or `?after=after`), here once restarted or on another server.
 */
export const StreamResume = Schema.Struct({
  type: Schema.Literal("stream.resume"),
  after: Schema.Int.annotations({ description: "The seq of the last event sent: resume after it" }),
  message: Schema.String
}).annotations({ identifier: "StreamResume" })
export type StreamResume = typeof StreamResume.Type

/** What a follow stream sends: the session's events, and at most one StreamResume, last. */
export const FollowEvent = Schema.Union(LunaEvent, StreamResume)
export type FollowEvent = typeof FollowEvent.Type
