import { Effect, Either, Schema } from "effect"
import { leading } from "../../schema/Length.ts"
import { ChangeStage, CONTROL, DeclareLimit, ProposeDecision, SHOWN_MAX } from "../../schema/luna/Control.ts"
import type { ModelNotConfigured, ModelUnavailable } from "../../schema/luna/LunaErrors.ts"
import type { ModelMessage, ModelToolCall } from "../../schema/luna/Model.ts"
import type { Outcome, TurnMetrics } from "../../schema/luna/Outcome.ts"
import type { Stage } from "../../schema/tools/Definition.ts"
import { decodeInput } from "../pipeline/Decode.ts"
import type { RegisteredTool } from "../tools/Registry.ts"
import { stripRefTokens } from "./anchors/RefTokens.ts"
import { beltOf, stageAfter } from "./Belts.ts"
import type { ModelGatewayApi } from "./ModelGateway.ts"
import { anchorShown, attemptsTogether, type Narrated, type Written } from "./Narrate.ts"
import { callTool, failureReply, type ToolCalls } from "./ToolStep.ts"
import { type CitableResult, functionsOf } from "./TurnInput.ts"

/** The most model calls one turn makes; past it the turn ends as a limit. */
export const MAX_STEPS = 8

export interface TurnContext extends ToolCalls {
  readonly gateway: ModelGatewayApi
  /** Puts a result's records on the board (the chat's, for this session). */
  readonly show: (result: CitableResult) => Effect.Effect<void>
}

interface State {
  readonly stage: Stage
  readonly messages: ReadonlyArray<ModelMessage>
  readonly results: ReadonlyArray<CitableResult>
  readonly nextRef: number
  readonly metrics: TurnMetrics
}

export interface TurnStart {
  readonly stage: Stage
  readonly messages: ReadonlyArray<ModelMessage>
  /** Every citable result of the session so far (earlier turns, the Mercado coverage). */
  readonly results: ReadonlyArray<CitableResult>
  readonly nextRef: number
}

export interface TurnEnd {
  readonly outcome: Outcome
  readonly metrics: TurnMetrics
}

const decodeControl = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknownEither(Schema.parseJson(schema))
const decodeDecision = decodeControl(ProposeDecision)
const decodeLimit = decodeControl(DeclareLimit)
const decodeStage = decodeControl(ChangeStage)

const toolReply = (call: ModelToolCall, content: string): ModelMessage => ({ role: "tool", tool_call_id: call.id, content })
const problem = (message: string) => JSON.stringify({ error: { tag: "InvalidInput", message } })

/**
 * The conversation as it stood when a control function's text was written, for its repair: that call
 * answered with the text, and any other call of the same reply answered as not run (the turn ends there).
 */
const written = (state: State, call: ModelToolCall, field: string, text: string): Written => {
  const answered = new Set(state.messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : [])))
  const reply = [...state.messages].reverse().find((m) => m.role === "assistant")
  const others = (reply?.role === "assistant" ? reply.tool_calls ?? [] : [])
    .filter((c) => c.id !== call.id && !answered.has(c.id))
    .map((c) => toolReply(c, problem(`not run: the turn ended with ${call.tool}`)))
  return { context: [...state.messages, toolReply(call, JSON.stringify({ [field]: text })), ...others], field, maxLength: SHOWN_MAX }
}

/** The metrics of a turn that closes by showing these texts: their attempts, and the models that repaired them. */
const shownMetrics = (metrics: TurnMetrics, shown: ReadonlyArray<Narrated>): TurnMetrics => ({
  ...metrics,
  attempts: attemptsTogether(shown),
  models: [...metrics.models, ...shown.flatMap((s) => s.models)]
})

/** What a person is told when no model answered: in their language, without the endpoints' own words. */
const unavailableDetail = (error: ModelUnavailable | ModelNotConfigured) =>
  error._tag === "ModelNotConfigured"
    ? "Luna no tiene un modelo configurado; quien administra el servicio debe configurarlo."
    : error.attempts.length > 1
    ? `Ninguno de los ${error.attempts.length} modelos de Luna respondió; el turno quedó sin terminar.`
    : "El modelo de Luna no respondió; el turno quedó sin terminar."

type Step = { readonly _tag: "next"; readonly state: State } | { readonly _tag: "end"; readonly end: TurnEnd }

/** One model step: the model answers, its calls run in order; a control function or a text ends the turn. */
const step = (context: TurnContext, state: State): Effect.Effect<Step> =>
  Effect.gen(function* () {
    const belt = beltOf(context.registry.tools, state.stage)
    const replied = yield* Effect.either(context.gateway.complete({ messages: state.messages, functions: functionsOf(belt) }))
    const metrics = { ...state.metrics, steps: state.metrics.steps + 1 }
    if (Either.isLeft(replied)) {
      // The person reads a sentence; what each endpoint answered (decoder output, an upstream body) goes to the log.
      yield* Effect.logWarning("Luna's model did not answer: the turn ends as modelo_no_disponible").pipe(
        Effect.annotateLogs({ sessionId: context.sessionId, problem: replied.left.message })
      )
      const outcome: Outcome = {
        kind: "limite",
        tipo: "modelo_no_disponible",
        detalle: unavailableDetail(replied.left),
        redirect: { tool: null, message: "Intenta de nuevo en unos minutos." }
      }
      return { _tag: "end", end: { outcome, metrics } } as const
    }
    const reply = replied.right
    const seen = { ...metrics, models: [...metrics.models, reply.model] }
    if (reply.tool_calls.length === 0) {
      const narration = reply.content ?? ""
      const narrated = yield* anchorShown(
        context.gateway,
        { context: [...state.messages, { role: "assistant", content: narration }] },
        narration,
        state.results
      )
      // a call refused for being off the belt ran nothing: an answer after only such calls is still a responder
      const kind = seen.tool_calls - seen.belt_violations > 0 ? "cierre" : "responder"
      yield* context.emit([{
        type: "message.assistant",
        text: stripRefTokens(narrated.narration),
        narration: narrated.narration,
        attempt: narrated.attempts.length
      }])
      const end: TurnEnd = {
        outcome: { kind, text: stripRefTokens(narrated.narration), partial: narrated.partial },
        metrics: { ...seen, attempts: narrated.attempts, models: [...seen.models, ...narrated.models] }
      }
      return { _tag: "end", end } as const
    }
    let current: State = {
      ...state,
      metrics: seen,
      messages: [...state.messages, { role: "assistant", content: reply.content, tool_calls: reply.tool_calls }]
    }
    for (const call of reply.tool_calls) {
      // a call earlier in this reply may have moved the stage: each call is checked against the belt of the stage it runs in
      const visible = current.stage === state.stage ? belt : beltOf(context.registry.tools, current.stage)
      const handled = yield* control(context, current, call, visible)
      if (handled._tag === "end") return handled
      if (handled._tag === "next") {
        current = handled.state
        continue
      }
      const ref = `r${current.nextRef}`
      const done = yield* callTool(context, visible, current.stage, call, ref)
      const after = done.result === null ? current.stage : stageAfter(call.tool, current.stage)
      if (done.result !== null) yield* context.show(done.result)
      if (after !== current.stage) {
        yield* context.emit([{ type: "stage.changed", from: current.stage, to: after, reason: `${call.tool} answered` }])
      }
      current = {
        stage: after,
        messages: [...current.messages, toolReply(call, done.reply)],
        results: done.result === null ? current.results : [...current.results, done.result],
        nextRef: done.result === null ? current.nextRef : current.nextRef + 1,
        metrics: {
          ...current.metrics,
          tool_calls: current.metrics.tool_calls + 1,
          belt_violations: current.metrics.belt_violations + (done.outOfBelt ? 1 : 0)
        }
      }
    }
    return { _tag: "next", state: current } as const
  })

/** The loop's own functions: propose a decision, declare a limit, change stage. Anything else is a tool. */
const control = (
  context: TurnContext,
  state: State,
  call: ModelToolCall,
  visible: ReadonlyArray<RegisteredTool>
): Effect.Effect<Step | { readonly _tag: "tool" }> =>
  Effect.gen(function* () {
    const answer = (content: string, changes: Partial<State> = {}): Step => ({
      _tag: "next",
      state: { ...state, ...changes, messages: [...state.messages, toolReply(call, content)] }
    })
    switch (call.tool) {
      case CONTROL.decision: {
        const decoded = decodeDecision(call.arguments)
        if (Either.isLeft(decoded)) return answer(problem(`${CONTROL.decision}: ${decoded.left.message}`))
        const { input, tool } = decoded.right
        const proposed = visible.find((t) => t.descriptor.id === tool)
        if (proposed === undefined) {
          return answer(problem(`${leading(tool, 100)} is not among the tools of stage ${state.stage}`))
        }
        // a person is shown only a call that can run: an input the tool would refuse goes back to the model
        const runnable = decodeInput(proposed, input)
        if (Either.isLeft(runnable)) return answer(failureReply(runnable.left))
        const summary = yield* anchorShown(
          context.gateway,
          written(state, call, "summary", decoded.right.summary),
          decoded.right.summary,
          state.results
        )
        const outcome: Outcome = {
          kind: "proponer_decision",
          tool,
          input,
          summary: stripRefTokens(summary.narration),
          ...(summary.partial ? { partial: true } : {})
        }
        return { _tag: "end", end: { outcome, metrics: shownMetrics(state.metrics, [summary]) } }
      }
      case CONTROL.limit: {
        const decoded = decodeLimit(call.arguments)
        if (Either.isLeft(decoded)) return answer(problem(`${CONTROL.limit}: ${decoded.left.message}`))
        const { redirect_tool, tipo } = decoded.right
        const known = redirect_tool !== null && context.registry.tools.some((t) => t.descriptor.id === redirect_tool)
        const detalle = yield* anchorShown(
          context.gateway,
          written(state, call, "detalle", decoded.right.detalle),
          decoded.right.detalle,
          state.results
        )
        const redirect = yield* anchorShown(
          context.gateway,
          written(state, call, "redirect_message", decoded.right.redirect_message),
          decoded.right.redirect_message,
          state.results
        )
        const narration = `${detalle.narration} ${redirect.narration}`
        const metrics = shownMetrics(state.metrics, [detalle, redirect])
        yield* context.emit([{ type: "message.assistant", text: stripRefTokens(narration), narration, attempt: metrics.attempts.length }])
        const outcome: Outcome = {
          kind: "limite",
          tipo,
          detalle: stripRefTokens(detalle.narration),
          redirect: { tool: known ? redirect_tool : null, message: stripRefTokens(redirect.narration) },
          ...(detalle.partial || redirect.partial ? { partial: true } : {})
        }
        return { _tag: "end", end: { outcome, metrics } }
      }
      case CONTROL.stage: {
        const decoded = decodeStage(call.arguments)
        if (Either.isLeft(decoded)) return answer(problem(`${CONTROL.stage}: ${decoded.left.message}`))
        if (decoded.right.stage === state.stage) return answer(JSON.stringify({ stage: state.stage }))
        yield* context.emit([{ type: "stage.changed", from: state.stage, to: decoded.right.stage, reason: decoded.right.reason }])
        return answer(JSON.stringify({ stage: decoded.right.stage }), { stage: decoded.right.stage })
      }
      default:
        return { _tag: "tool" } as const
    }
  })

/** Runs one turn to its one outcome: model steps until a close, a control function or the step cap. */
export const runTurn = Effect.fn("Luna.turn")(function* (context: TurnContext, start: TurnStart) {
  let state: State = { ...start, metrics: { steps: 0, tool_calls: 0, belt_violations: 0, attempts: [], models: [] } }
  while (state.metrics.steps < MAX_STEPS) {
    const next = yield* step(context, state)
    if (next._tag === "end") return next.end
    state = next.state
  }
  const outcome: Outcome = {
    kind: "limite",
    tipo: "pasos_agotados",
    detalle: `El turno llegó a su tope de ${MAX_STEPS} pasos.`,
    redirect: { tool: null, message: "Dime cómo seguir y continúo desde estos resultados." }
  }
  return { outcome, metrics: state.metrics } satisfies TurnEnd
})
