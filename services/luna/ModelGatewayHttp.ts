import type { HttpClient } from "@effect/platform"
import { Array as Arr, Context, Effect, Layer } from "effect"
import type { ChatRequestBody, ChatResponseBody, WireMessage } from "../../schema/luna/ChatWire.ts"
import { ModelNotConfigured, ModelUnavailable } from "../../schema/luna/LunaErrors.ts"
import type { ModelMessage, ModelReply, ModelRequest } from "../../schema/luna/Model.ts"
import { type ChatEndpoint, type ChatPolicy, makeChatCompletions } from "./ChatCompletions.ts"
import { type FunctionNames, functionNames } from "./FunctionNames.ts"
import { ModelGateway } from "./ModelGateway.ts"

/** Where Luna's model calls go: the endpoints in order (the primary, then the fallback); none = not configured. */
export class LunaModelSettings extends Context.Tag("brein/luna/LunaModelSettings")<LunaModelSettings, {
  readonly endpoints: ReadonlyArray<ChatEndpoint>
  readonly policy: ChatPolicy
}>() {}

const wireMessage = (names: FunctionNames) => (message: ModelMessage): WireMessage => {
  if (message.role !== "assistant" || message.tool_calls === undefined || !Arr.isNonEmptyReadonlyArray(message.tool_calls)) {
    return message.role === "assistant" ? { role: "assistant", content: message.content } : message
  }
  return {
    role: "assistant",
    content: message.content,
    tool_calls: Arr.map(message.tool_calls, (call) => ({
      id: call.id,
      type: "function" as const,
      function: { name: names.wireName(call.tool), arguments: call.arguments }
    }))
  }
}

const historyTools = (messages: ReadonlyArray<ModelMessage>) =>
  messages.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.tool) : []))

const requestBody = (model: string, request: ModelRequest, names: FunctionNames): ChatRequestBody => {
  const tools = request.functions.map((f) => ({
    type: "function" as const,
    function: { name: names.wireName(f.tool), description: f.description, parameters: f.parameters }
  }))
  return {
    model,
    messages: request.messages.map(wireMessage(names)),
    ...(Arr.isNonEmptyArray(tools) ? { tools, tool_choice: "auto" as const } : {}),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature })
  }
}

const replyOf = (model: string, body: ChatResponseBody, names: FunctionNames): ModelReply => {
  const { message } = body.choices[0]
  return {
    content: message.content,
    tool_calls: (message.tool_calls ?? []).map((call) => ({
      id: call.id,
      tool: names.toolOf(call.function.name),
      arguments: call.function.arguments
    })),
    model,
    ...(body.usage === undefined
      ? {}
      : { usage: { prompt_tokens: body.usage.prompt_tokens, completion_tokens: body.usage.completion_tokens } })
  }
}

export const makeModelGatewayHttp = Effect.fn("ModelGatewayHttp.make")(function* () {
  const { endpoints, policy } = yield* LunaModelSettings
  const chat = yield* makeChatCompletions(policy)

  /** `model` in the reply is the configured name of the endpoint that answered. */
  const complete = Effect.fn("ModelGateway.complete")(function* (request: ModelRequest) {
    if (endpoints.length === 0) return yield* ModelNotConfigured.default
    const names = functionNames(request.functions.map((f) => f.tool), historyTools(request.messages))
    return yield* Effect.validateFirst(endpoints, (endpoint) =>
      chat.complete(endpoint, requestBody(endpoint.model, request, names)).pipe(
        Effect.map((body) => replyOf(endpoint.model, body, names))
      )).pipe(
        Effect.mapError((failures) => {
          const attempts = failures.map((failure) => ({ model: failure.model, problem: failure.message }))
          return new ModelUnavailable({
            message: `Luna's model did not answer: ${attempts.map((a) => `${a.model} (${a.problem})`).join("; ")}`,
            attempts,
            ...(endpoints.length === 1
              ? { hint: "LUNA_FALLBACK_MODEL (or LUNA_FALLBACK_BASE_URL and LUNA_FALLBACK_API_KEY) adds a fallback model" }
              : {})
          })
        })
      )
  })

  const ready = endpoints.length === 0 ? Effect.fail(ModelNotConfigured.default) : Effect.void
  return ModelGateway.of({ ready, complete })
})

export const ModelGatewayHttp = {
  /** Luna's model over OpenAI-compatible chat completions: each call tries the endpoints in order. */
  layer: Layer.effect(ModelGateway, makeModelGatewayHttp()) satisfies Layer.Layer<
    ModelGateway,
    never,
    LunaModelSettings | HttpClient.HttpClient
  >
}
