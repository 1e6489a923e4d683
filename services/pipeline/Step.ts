import { Effect, type Tracer } from "effect"
import { noStack } from "../Span.ts"

/** What every step is handed first: the call so far, with the call's span (Executor.call). */
export interface InCall {
  readonly span: Tracer.Span
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

/** A step that only computes (no SQL, no logs, no span of its own inside): its span opens and ends around it. */
export const leaf =
  (name: string) =>
  <C extends InCall, Args extends ReadonlyArray<unknown>, A, E, R>(body: (call: C, ...args: Args) => Effect.Effect<A, E, R>) =>
  (call: C, ...args: Args): Effect.Effect<A, E, R> => Effect.useSpan(name, { ...noStack, parent: call.span }, () => body(call, ...args))

/** A leaf that hands its own span to the body: the audit step gives it to the group writer as the row's caller. */
export const leafWithSpan = (name: string) =>
<C extends InCall, Args extends ReadonlyArray<unknown>, A, E, R>(
  body: (span: Tracer.Span, call: C, ...args: Args) => Effect.Effect<A, E, R>
) =>
(call: C, ...args: Args): Effect.Effect<A, E, R> =>
  Effect.useSpan(name, { ...noStack, parent: call.span }, (span) => body(span, call, ...args))
