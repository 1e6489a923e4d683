import { Schema } from "effect"

/**
 * The OpenAI-compatible chat-completions wire format (`POST {base_url}/chat/completions`), as far as
 * Luna uses it. Functions are named by provider-safe names here, never by registry id.
 */
export const WireToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Schema.String,
    arguments: Schema.String.annotations({ description: "JSON text, as the model wrote it" })
  })
})
export type WireToolCall = typeof WireToolCall.Type

export const WireMessage = Schema.Union(
  Schema.Struct({ role: Schema.Literal("system"), content: Schema.String }),
  Schema.Struct({ role: Schema.Literal("user"), content: Schema.String }),
  Schema.Struct({
    role: Schema.Literal("assistant"),
    content: Schema.NullOr(Schema.String),
    tool_calls: Schema.optionalWith(Schema.NonEmptyArray(WireToolCall), { exact: true })
  }),
  Schema.Struct({ role: Schema.Literal("tool"), tool_call_id: Schema.String, content: Schema.String })
)
export type WireMessage = typeof WireMessage.Type

/** A function name the providers accept. */
export const WIRE_FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/

export const WireTool = Schema.Struct({
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Schema.String.pipe(Schema.pattern(WIRE_FUNCTION_NAME)),
    description: Schema.String,
    parameters: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  })
})
export type WireTool = typeof WireTool.Type

/** Providers refuse `tools: []`: without functions, `tools` and `tool_choice` are left out. */
export const ChatRequestBody = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(WireMessage),
  tools: Schema.optionalWith(Schema.NonEmptyArray(WireTool), { exact: true }),
  tool_choice: Schema.optionalWith(Schema.Literal("auto"), { exact: true }),
  temperature: Schema.optionalWith(Schema.Number, { exact: true })
})
export type ChatRequestBody = typeof ChatRequestBody.Type

export const WireUsage = Schema.Struct({
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  total_tokens: Schema.optionalWith(Schema.Int, { exact: true })
})

const ReplyToolCall = Schema.Struct({
  id: Schema.String,
  // Some compatible servers leave `type` out of a reply's calls.
  type: Schema.optionalWith(Schema.Literal("function"), { exact: true }),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

export const ChatChoice = Schema.Struct({
  message: Schema.Struct({
    content: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    tool_calls: Schema.optionalWith(Schema.Array(ReplyToolCall), { exact: true, nullable: true })
  }),
  finish_reason: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})

/** Extra fields (`object`, `created`, `system_fingerprint`, `reasoning_content`, …) are ignored. */
export const ChatResponseBody = Schema.Struct({
  id: Schema.String,
  model: Schema.String,
  choices: Schema.NonEmptyArray(ChatChoice),
  usage: Schema.optionalWith(WireUsage, { exact: true, nullable: true })
})
export type ChatResponseBody = typeof ChatResponseBody.Type

/** The error body OpenAI-compatible servers send with a 4xx/5xx. */
export const ChatErrorBody = Schema.Struct({ error: Schema.Struct({ message: Schema.String }) })
