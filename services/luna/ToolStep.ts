import { Effect, Either, Schema } from "effect"
import type { EventBody } from "../../schema/luna/Events.ts"
import type { ModelToolCall } from "../../schema/luna/Model.ts"
import type { Stage } from "../../schema/tools/Definition.ts"
import type { ToolResponse } from "../../schema/tools/Response.ts"
import type { Executor } from "../pipeline/Executor.ts"
import type { RegisteredTool } from "../tools/Registry.ts"
import { modelView } from "./ModelView.ts"
import type { CitableResult } from "./TurnInput.ts"
import type { Owner } from "./WorkSessions.ts"

const parseArguments = Schema.decodeUnknownEither(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })))

/** What one tool call of the model came to: what the model reads back, and the result if there is one. */
export interface ToolOutcome {
  readonly reply: string
  readonly result: CitableResult | null
  readonly outOfBelt: boolean
}

export type Emit = (bodies: ReadonlyArray<EventBody>) => Effect.Effect<void>

const inputEvent = (call: ModelToolCall, input: unknown): EventBody => ({
  type: "tool",
  state: "input-available",
  tool_call_id: call.id,
  tool_id: call.tool,
  input
})

const errorEvent = (call: ModelToolCall, tag: string, message: string): EventBody => ({
  type: "tool",
  state: "output-error",
  tool_call_id: call.id,
  tool_id: call.tool,
  error: { tag, message }
})

const errorReply = (tag: string, message: string) => JSON.stringify({ error: { tag, message } })

/** What the model reads of an answer: its ref, its data and the instructions that came with it; never the audit meta. */
const payloadOf = (response: ToolResponse) => {
  const { meta: _meta, ...rest } = response
  return rest
}

/** Context of the tool calls of one turn. */
export interface ToolCalls {
  readonly executor: Executor
  readonly who: Owner
  readonly sessionId: string
  readonly emit: Emit
}

/**
 * One registry tool call of the model, through the executor (surface luna, audited, with the session's
 * principal and board). A tool outside the stage's belt is refused before anything runs.
 */
export const callTool = Effect.fn("Luna.tool")(
  function* (context: ToolCalls, belt: ReadonlyArray<RegisteredTool>, stage: Stage, call: ModelToolCall, ref: string) {
    if (!belt.some((tool) => tool.descriptor.id === call.tool)) {
      const message = `${call.tool.slice(0, 100)} is not among the tools of stage ${stage}: ${belt.map((t) => t.descriptor.id).join(", ")}`
      yield* context.emit([inputEvent(call, call.arguments), errorEvent(call, "OutOfBelt", message)])
      return { reply: errorReply("OutOfBelt", message), result: null, outOfBelt: true }
    }
    const parsed = parseArguments(call.arguments === "" ? "{}" : call.arguments)
    if (Either.isLeft(parsed)) {
      const message = "the arguments are not a JSON object"
      yield* context.emit([inputEvent(call, call.arguments), errorEvent(call, "InvalidInput", message)])
      return { reply: errorReply("InvalidInput", message), result: null, outOfBelt: false }
    }
    const input = parsed.right
    yield* context.emit([inputEvent(call, input)])
    const answered = yield* Effect.either(
      context.executor.call(call.tool, input, { surface: "luna", principal: context.who.principal, sessionId: context.sessionId })
    )
    if (Either.isLeft(answered)) {
      const { _tag, message } = answered.left
      yield* context.emit([errorEvent(call, _tag, message)])
      return { reply: errorReply(_tag, message), result: null, outOfBelt: false }
    }
    const payload = payloadOf(answered.right)
    yield* context.emit([{
      type: "tool",
      state: "output-available",
      tool_call_id: call.id,
      tool_id: call.tool,
      ref,
      output: payload,
      request_id: answered.right.meta.request_id,
      audit_status: answered.right.meta.audit_status
    }])
    return {
      reply: JSON.stringify(modelView({ ref, ...payload })),
      result: { ref, toolId: call.tool, payload },
      outOfBelt: false
    } satisfies ToolOutcome
  }
)
