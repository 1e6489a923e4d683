import { Schema } from "effect"

/**
 * One model call, in the loop's own terms: tools are named by their registry id. The gateway maps
 * ids to provider-safe function names on the way out and back on the way in, so a recorded reply
 * (a replay) names tools exactly as the registry does.
 */
export const ModelToolCall = Schema.Struct({
  id: Schema.String.annotations({ description: "The call's id, as the model gave it" }),
  tool: Schema.String.annotations({ description: "The registry id of the tool (or a control function of the loop)" }),
  arguments: Schema.String.annotations({ description: "The arguments as the model wrote them: JSON text, not yet decoded" })
}).annotations({ identifier: "ModelToolCall" })
export type ModelToolCall = typeof ModelToolCall.Type

export const ModelMessage = Schema.Union(
  Schema.Struct({ role: Schema.Literal("system"), content: Schema.String }),
  Schema.Struct({ role: Schema.Literal("user"), content: Schema.String }),
  Schema.Struct({
    role: Schema.Literal("assistant"),
    content: Schema.NullOr(Schema.String),
    tool_calls: Schema.optionalWith(Schema.Array(ModelToolCall), { exact: true })
  }),
  Schema.Struct({ role: Schema.Literal("tool"), tool_call_id: Schema.String, content: Schema.String })
).annotations({ identifier: "ModelMessage" })
export type ModelMessage = typeof ModelMessage.Type

/** A function the model may call: a registry tool (by id) or one of the loop's control functions. */
export const ModelFunction = Schema.Struct({
  tool: Schema.String,
  description: Schema.String,
  parameters: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type ModelFunction = typeof ModelFunction.Type

export interface ModelRequest {
  readonly messages: ReadonlyArray<ModelMessage>
  readonly functions: ReadonlyArray<ModelFunction>
  readonly temperature?: number
}

export const ModelUsage = Schema.Struct({ prompt_tokens: Schema.Int, completion_tokens: Schema.Int })

/** What one model call answered: text, tool calls, or both; and which model answered it. */
export const ModelReply = Schema.Struct({
  content: Schema.NullOr(Schema.String),
  tool_calls: Schema.Array(ModelToolCall),
  model: Schema.String.annotations({ description: "The model that answered (the primary, or the fallback when the primary failed)" }),
  usage: Schema.optionalWith(ModelUsage, { exact: true })
}).annotations({ identifier: "ModelReply" })
export type ModelReply = typeof ModelReply.Type
