import { Effect, Either, Schema } from "effect"
import { leading } from "../../schema/Length.ts"
import { CONTROL } from "../../schema/luna/Control.ts"
import type { EventBody } from "../../schema/luna/Events.ts"
import type { ModelToolCall } from "../../schema/luna/Model.ts"
import type { Stage } from "../../schema/tools/Definition.ts"
import type { ToolResponse } from "../../schema/tools/Response.ts"
import type { ToolError } from "../../schema/tools/ToolError.ts"
import type { Executor } from "../pipeline/Executor.ts"
import type { RegisteredTool, RegistryApi } from "../tools/Registry.ts"
import { calledName, standalone, toolNamed } from "./FunctionNames.ts"
import { modelView } from "./ModelView.ts"
import type { CitableResult } from "./TurnInput.ts"
import type { Owner } from "./WorkSessions.ts"

const parseArguments = Schema.decodeUnknownEither(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
const parseJson = Schema.decodeUnknownEither(Schema.parseJson())

/** A call's input as the log keeps it: its JSON when it is JSON (no arguments is an empty object), else the text. */
const loggedInput = (args: string): unknown => args === "" ? {} : Either.getOrElse(parseJson(args), () => args)

/** What one tool call of the model came to: what the model reads back, and the result if there is one. */
export interface ToolOutcome {
  readonly reply: string
  readonly result: CitableResult | null
  readonly outOfBelt: boolean
}

export type Emit = (bodies: ReadonlyArray<EventBody>) => Effect.Effect<void>

const inputEvent = (call: ModelToolCall, input: unknown, toolId: string = call.tool): EventBody => ({
  type: "tool",
  state: "input-available",
  tool_call_id: call.id,
  tool_id: toolId,
  input
})

const errorEvent = (call: ModelToolCall, tag: string, message: string, toolId: string = call.tool): EventBody => ({
  type: "tool",
  state: "output-error",
  tool_call_id: call.id,
  tool_id: toolId,
  error: { tag, message }
})

const errorReply = (tag: string, message: string) => JSON.stringify({ error: { tag, message } })

/** A typed error as the model reads it: its tag and message, and what says how to correct the call (issues, hint). */
export const failureReply = (error: ToolError) =>
  JSON.stringify({
    error: {
      tag: error._tag,
      message: error.message,
      ...(error._tag === "InvalidInput" ? { issues: error.issues } : {}),
      ...("hint" in error && error.hint !== undefined ? { hint: error.hint } : {})
    }
  })

/** What the model reads of an answer: its ref, its data and the instructions that came with it; never the audit meta. */
const payloadOf = (response: ToolResponse) => {
  const { meta: _meta, ...rest } = response
  return rest
}

/** Context of the tool calls of one turn. */
export interface ToolCalls {
  readonly executor: Executor
  /** The registry, to say on which stage a tool outside the belt is. */
  readonly registry: RegistryApi
  readonly who: Owner
  readonly sessionId: string
  readonly emit: Emit
}

/** A call outside the belt, said with the stages that have the tool it named (`known`), if any. */
const outOfBelt = (known: RegisteredTool | undefined, belt: ReadonlyArray<RegisteredTool>, stage: Stage, called: string) => {
  const elsewhere = known === undefined || known.descriptor.stages.length === 0
    ? ""
    : ` ${known.descriptor.id} is on stage ${known.descriptor.stages.join(", ")}: change stage with ${standalone(CONTROL.stage)} first.`
  return `${leading(calledName(called), 100)} is not among the tools of stage ${stage}.${elsewhere} The tools of ${stage}: ${
    belt.map((t) => t.descriptor.id).join(", ")
  }`
}

/**
 * What Luna does not run itself: a tool of approval level 1 (it writes the team's records: a preview card)
 * and a level-2 tool confirmed (it spends credits: a hard gate); a level-2 quote spends nothing and runs.
 * Such a call is proposed (luna.proponer_decision), and a person decides.
 */
const needsApproval = (tool: RegisteredTool, input: Readonly<Record<string, unknown>>): string | undefined => {
  const { id, level } = tool.descriptor
  const propose = `propose it with ${standalone(CONTROL.decision)} and a person decides`
  if (level === 1) return `${id} writes the team's records: Luna does not run it; ${propose}`
  if (level === 2 && input["confirm"] === true) {
    return `${id} with confirm spends credits: Luna does not confirm it; quote it (without confirm), then ${propose}`
  }
  return undefined
}

/**
 * One registry tool call of the model, through the executor (surface luna, audited, with the session's
 * principal and board). A tool outside the stage's belt, or one a person must approve, is refused before anything runs.
 */
export const callTool = Effect.fn("Luna.tool")(
  function* (context: ToolCalls, belt: ReadonlyArray<RegisteredTool>, stage: Stage, call: ModelToolCall, ref: string) {
    const tool = belt.find((tool) => tool.descriptor.id === call.tool)
    if (tool === undefined) {
      // logged under the tool the model asked for (its id, by whatever function name), or the name it wrote
      const id = toolNamed(context.registry.tools.map((t) => t.descriptor.id), call.tool)
      const known = context.registry.tools.find((t) => t.descriptor.id === id)
      const message = outOfBelt(known, belt, stage, call.tool)
      const asked = id ?? calledName(call.tool)
      yield* context.emit([inputEvent(call, loggedInput(call.arguments), asked), errorEvent(call, "OutOfBelt", message, asked)])
      return { reply: errorReply("OutOfBelt", message), result: null, outOfBelt: true }
    }
    const parsed = parseArguments(call.arguments === "" ? "{}" : call.arguments)
    if (Either.isLeft(parsed)) {
      const message = "the arguments are not a JSON object"
      yield* context.emit([inputEvent(call, loggedInput(call.arguments)), errorEvent(call, "InvalidInput", message)])
      return { reply: errorReply("InvalidInput", message), result: null, outOfBelt: false }
    }
    const input = parsed.right
    const gated = needsApproval(tool, input)
    if (gated !== undefined) {
      yield* context.emit([inputEvent(call, input), errorEvent(call, "NeedsApproval", gated)])
      return { reply: errorReply("NeedsApproval", gated), result: null, outOfBelt: false }
    }
    yield* context.emit([inputEvent(call, input)])
    const answered = yield* Effect.either(
      context.executor.call(call.tool, input, { surface: "luna", principal: context.who.principal, sessionId: context.sessionId })
    )
    if (Either.isLeft(answered)) {
      yield* context.emit([errorEvent(call, answered.left._tag, answered.left.message)])
      return { reply: failureReply(answered.left), result: null, outOfBelt: false }
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
