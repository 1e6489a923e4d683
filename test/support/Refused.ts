import { Effect, Either } from "effect"

/**
 * The error of a call expected to fail. A call that answers instead dies with a short message naming
 * it: failing the test with the answer itself (Effect.flip) left vitest formatting it without end.
 */
export const refused = <A, E, R>(call: Effect.Effect<A, E, R>, what: string): Effect.Effect<E, never, R> =>
  Effect.flatMap(
    Effect.either(call),
    Either.match({
      onLeft: Effect.succeed,
      onRight: (answer) => Effect.dieMessage(`${what} answered instead of failing: ${JSON.stringify(answer).slice(0, 400)}`)
    })
  )
