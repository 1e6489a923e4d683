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
 * parent, which would copy the fiber's context once per call for the steps that only compute. A step
 * that runs effects with spans of their own (SQL, upstream clients, a tool's handler) provides its
 * span as their parent: that is `step`. One that only computes is a `leaf`, which does not.
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

/** A leaf that hands its own span to the body: the audit step gives it to the group writer as the row's caller. */
export const leafWithSpan = (name: string) =>
<C extends InCall, Args extends ReadonlyArray<unknown>, A, E, R>(
  body: (span: Tracer.Span, call: C, ...args: Args) => Effect.Effect<A, E, R>
) =>
(call: C, ...args: Args): Effect.Effect<A, E, R> =>
  Effect.useSpan(name, { ...noStack, parent: call.span }, (span) => body(span, call, ...args))
