import { type Clock, Context, Effect, Either, Exit, Option, type Tracer } from "effect"

/** What every step is handed first: the call so far, with the call's span (Executor.call). */
export interface InCall {
  readonly span: Tracer.Span
  /** The clock the call started by: its steps' spans end by it. */
  readonly clock: Clock.Clock
  /**
   * The tracer the call started under, or none when tracing is off for it: each step's span is made
   * by it directly, under the call's span, instead of by reading the fiber's tracer, clock and span
   * annotations again for every step.
   */
  readonly tracer: Option.Option<Tracer.Tracer>
}

const noLinks: ReadonlyArray<Tracer.SpanLink> = []

/** A span of its own under the call's span, started now (the call's own span when tracing is off). */
export const childSpan = (call: InCall, name: string): Tracer.Span =>
  Option.isNone(call.tracer)
    ? call.span
    : call.tracer.value.span(name, Option.some(call.span), Context.empty(), noLinks, call.clock.unsafeCurrentTimeNanos(), "internal")

const ended = <A, E>(call: InCall, span: Tracer.Span, exit: Exit.Exit<A, E>) => {
  if (span !== call.span) span.end(call.clock.unsafeCurrentTimeNanos(), exit)
}

/** Runs `effect` and ends `span` with its exit, interrupted or not. */
const endingWith = <A, E, R>(call: InCall, span: Tracer.Span, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.onExit(effect, (exit) => Effect.sync(() => ended(call, span, exit)))

/**
 * A step of the executor in a span of its own under the call's span, which it is handed (`call.span`)
 * rather than reading it from the fiber's context: the call's span is never provided as the context's
 * parent, which would copy the fiber's context once per call. Three kinds of step:
 * - `step` provides its span as the parent of the effects it runs (SQL in authorize's connection
 *   lookup, the budget's read of the hour, the audit row written in the call's transaction);
 * - `leafWithSpan` hands its span to the body, which gives it where it is needed (the handler's
 *   context, built anyway by the registry; the group writer's batch);
 * - `pure` only computes, synchronously.
 */
export const step =
  (name: string) =>
  <C extends InCall, Args extends ReadonlyArray<unknown>, A, E, R>(body: (call: C, ...args: Args) => Effect.Effect<A, E, R>) =>
  (call: C, ...args: Args): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const span = childSpan(call, name)
      return endingWith(call, span, Effect.withParentSpan(body(call, ...args), span))
    })

/**
 * A step that only computes: a plain function from the call to an Either, in a span that opens and
 * ends around it. It runs when the step is called and needs no runtime operation of its own: the
 * Either it answers is the step's effect.
 */
export const pure =
  (name: string) => <C extends InCall, A, E>(body: (call: C) => Either.Either<A, E>) => (call: C): Effect.Effect<A, E> => {
    const span = childSpan(call, name)
    try {
      const result = body(call)
      ended(call, span, Either.isRight(result) ? Exit.succeed(result.right) : Exit.fail(result.left))
      return result
    } catch (defect) {
      ended(call, span, Exit.die(defect))
      return Effect.die(defect)
    }
  }

/** A step that hands its own span to the body: run and afterCommit to the handler, the audit step to the group writer. */
export const leafWithSpan = (name: string) =>
<C extends InCall, Args extends ReadonlyArray<unknown>, A, E, R>(
  body: (span: Tracer.Span, call: C, ...args: Args) => Effect.Effect<A, E, R>
) =>
(call: C, ...args: Args): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const span = childSpan(call, name)
    return endingWith(call, span, body(span, call, ...args))
  })
