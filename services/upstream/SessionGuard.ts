import { Effect, FiberRef } from "effect"

/**
 * Runs before every upstream step (a login, a request) of the fiber that sets it: the sync sets it to
 * its session lease's check, which never returns once the lease is lost, so a holder that lost its
 * lease sends nothing more while it is being stopped.
 */
export const currentSessionGuard = FiberRef.unsafeMake<Effect.Effect<void>>(Effect.void)

/** `step` behind the current session guard. */
export const guarded = <A, E, R>(step: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(currentSessionGuard), (guard) => Effect.zipRight(guard, step))
