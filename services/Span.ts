import { Effect } from "effect"

// The span's name says where it is. Effect.fn would capture a stack trace on every call as well: on the
// paths every call takes (the executor's steps, the audit writer) that capture was most of what tracing cost.
const options = { captureStackTrace: false } as const

/**
 * A function on a hot path in a span of its own named `name`, under which its effects run (its SQL, the
 * functions it calls): an `Effect.fn` without the stack capture. The body is written as for `Effect.fn`:
 * `step("Executor.run")(Effect.fnUntraced(...))`.
 */
export const step =
  (name: string) =>
  <Args extends ReadonlyArray<unknown>, A, E, R>(body: (...args: Args) => Effect.Effect<A, E, R>) =>
  (...args: Args): Effect.Effect<A, E, R> => Effect.withSpan(body(...args), name, options)

/**
 * A step that only computes (no SQL, no logs, no step of its own inside): its span, a child of the
 * call's, opens and ends around it, and its effects are not re-parented under it (which would copy the
 * fiber's context on every call for nothing to read it).
 */
export const leaf =
  (name: string) =>
  <Args extends ReadonlyArray<unknown>, A, E, R>(body: (...args: Args) => Effect.Effect<A, E, R>) =>
  (...args: Args): Effect.Effect<A, E, R> => Effect.useSpan(name, options, () => body(...args))
