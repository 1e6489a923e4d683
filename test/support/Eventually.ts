import { type Duration, Effect, Schedule } from "effect"

/**
 * Reads `read` until `done` holds, every `every`, at most `tries` times (about 20 s by default);
 * then dies naming what did not happen and the last value read. The bound counts reads, so it does
 * not depend on which clock the test runs on.
 */
export const waitUntil = <A, E, R>(
  read: Effect.Effect<A, E, R>,
  done: (value: A) => boolean,
  options: { readonly what: string; readonly every?: Duration.DurationInput; readonly tries?: number }
): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const policy = Schedule.recurUntil(done).pipe(
      Schedule.intersect(Schedule.spaced(options.every ?? "25 millis")),
      Schedule.intersect(Schedule.recurs(options.tries ?? 800)),
      Schedule.passthrough
    )
    const last = yield* Effect.repeat(read, policy)
    if (done(last)) return last
    return yield* Effect.dieMessage(`${options.what} did not happen; last seen: ${JSON.stringify(last)}`)
  })
