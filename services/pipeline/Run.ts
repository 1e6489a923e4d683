import { Cause, Effect, Ref, type Tracer } from "effect"
import { ServiceUnavailable, ToolFailed } from "../../schema/Errors.ts"
import type { EnvelopeExtras } from "../../schema/tools/Envelope.ts"
import type { BudgetError, HandlerError } from "../../schema/tools/ToolError.ts"
import { isTransient } from "../Database.ts"
import type { CallInfo } from "../tools/Tool.ts"
import type { Budgeted, Ran, Request } from "./Call.ts"
import { leafWithSpan } from "./Step.ts"

/** A handler that died: the database briefly gone answers ServiceUnavailable, anything else ToolFailed. */
export const handled = (toolId: string) => <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.catchAllDefect(effect, (defect): Effect.Effect<never, ServiceUnavailable | ToolFailed> =>
    isTransient(defect)
      ? Effect.logWarning("database unavailable: the call answers ServiceUnavailable", Cause.die(defect)).pipe(
        Effect.zipRight(Effect.fail(ServiceUnavailable.database))
      )
      : Effect.logError("tool handler died", Cause.die(defect)).pipe(
        Effect.zipRight(Effect.fail(new ToolFailed({ toolId, message: "the tool failed unexpectedly" })))
      ))

/**
 * Runs `body` with a CallInfo whose `annotate` collects into extras owned by this run, and answers
 * them with the body's result.
 */
export const collecting = <A, E>(
  request: Request,
  span: Tracer.AnySpan,
  from: EnvelopeExtras,
  body: (info: CallInfo) => Effect.Effect<A, E>
): Effect.Effect<readonly [A, EnvelopeExtras], E> =>
  Effect.flatMap(Ref.make(from), (extras) => {
    const info: CallInfo = {
      requestId: request.requestId,
      surface: request.context.surface,
      principal: request.context.principal,
      sessionId: request.context.sessionId ?? null,
      annotate: (more) => Ref.update(extras, (before) => ({ ...before, ...more })),
      progress: request.context.onProgress ?? (() => Effect.void),
      span
    }
    return Effect.flatMap(body(info), (result) => Effect.map(Ref.get(extras), (collected) => [result, collected] as const))
  })

/**
 * Step 5: the handler, as authorization bound it (a read call's with its persistence buffer). The
 * registry makes this step's span the parent of the handler's, with the handler's context.
 */
export const run = leafWithSpan("Executor.run")(Effect.fnUntraced(function* (span: Tracer.Span, call: Budgeted) {
  const guard = handled(call.toolId)
  const [ran, extras] = yield* collecting(call, span, {}, (info) => guard(call.bound.run(info)))
  return { ...call, data: ran.answer, afterCommit: ran.afterCommit, extras } satisfies Ran
})) satisfies (call: Budgeted) => Effect.Effect<Ran, HandlerError | BudgetError | ServiceUnavailable>
