import { Effect } from "effect"

// The span's name says where it is. Effect.fn would capture a stack trace on every call as well: on the
// paths every call takes (the executor's steps, the audit writer) that capture was most of what tracing cost.
export const noStack = { captureStackTrace: false } as const

/**
 * A function on a hot path in a span of its own named `name`, under which its effects run (its SQL, the
 * functions it calls): an `Effect.fn` without the stack capture. The body is written as for `Effect.fn`:
 * `traced("AuditStore.insert")(Effect.fnUntraced(...))`.
 */
export const traced =
  (name: string) =>
  <Args extends ReadonlyArray<unknown>, A, E, R>(body: (...args: Args) => Effect.Effect<A, E, R>) =>
  (...args: Args): Effect.Effect<A, E, R> => Effect.withSpan(body(...args), name, noStack)
