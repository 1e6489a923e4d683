import { type Clock, Effect, Either, Exit, type Tracer } from "effect"
import { noStack } from "../Span.ts"

/** What every step is handed first: the call so far, with the call's span (Executor.call). */
export interface InCall {
  readonly span: Tracer.Span
  /** The clock the call started by: its steps' spans end by it. */
  readonly clock: Clock.Clock
}

/**
 * A step of the executor in a span of its own under the call's span, which it is handed (`call.span`)
 * rather than reading it from the fiber's context: the call's span is never provided as the context's
 * parent, which would copy the fiber's context once per call. Three kinds of step:
 * - `step` provides its span as the parent of the effects it runs (SQL in authorize's connection
 *   lookup, the audit row written in the call's transaction);
 * - `leafWithSpan` hands its span to the body, which gives it where it is needed (the handler's
 *   context, built anyway by the registry; the group writer's batch);
 * - `pure` only computes, synchronously.
 */
export const step =
  (name: string) =>
  <C extends InCall, Args extends ReadonlyArray<unknown>, A, E, R>(body: (call: C, ...args: Args) => Effect.Effect<A, E, R>) =>
  (call: C, ...args: Args): Effect.Effect<A, E, R> => Effect.withSpan(body(call, ...args), name, { ...noStack, parent: call.span })

/**
 * A step that only computes: a plain function from the call to an Either, in a span that opens and
 * ends around it. Nothing can interrupt a synchronous body, so its span needs none of the guard
 * `Effect.useSpan` puts around an effect (an uninterruptible region: about fifteen runtime operations
 * per span, on steps that every call takes).
 */
export const pure = (name: string) => <C extends InCall, A, E>(body: (call: C) => Either.Either<A, E>) => (call: C): Effect.Effect<A, E> =>
  Effect.flatMap(Effect.makeSpan(name, { ...noStack, parent: call.span }), (span) => {
    const ended = (exit: Exit.Exit<A, E>) => span.end(call.clock.unsafeCurrentTimeNanos(), exit)
    try {
      const result = body(call)
      ended(Either.isRight(result) ? Exit.succeed(result.right) : Exit.fail(result.left))
      return result
    } catch (defect) {
      ended(Exit.die(defect))
      return Effect.die(defect)
    }
  })

/** A step that hands its own span to the body: run and afterCommit to the handler, the audit step to the group writer. */
export const leafWithSpan = (name: string) =>
<C extends InCall, Args extends ReadonlyArray<unknown>, A, E, R>(
  body: (span: Tracer.Span, call: C, ...args: Args) => Effect.Effect<A, E, R>
) =>
(call: C, ...args: Args): Effect.Effect<A, E, R> =>
  Effect.useSpan(name, { ...noStack, parent: call.span }, (span) => body(span, call, ...args))
