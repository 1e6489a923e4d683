import { Clock, Duration, Effect, Layer } from "effect"

/**
 * A clock for a whole running server: real time plus whatever the test has skipped. Time-based limits
 * see the skip at once, while sleeps (pools, workers, timeouts) stay real, so nothing else stalls.
 */
export const shiftedClock = () => {
  const real = Clock.make()
  let skippedMs = 0
  const millis = () => real.unsafeCurrentTimeMillis() + skippedMs
  const nanos = () => real.unsafeCurrentTimeNanos() + BigInt(skippedMs) * 1_000_000n
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: nanos,
    currentTimeNanos: Effect.sync(nanos),
    sleep: (duration) => real.sleep(duration)
  }
  return {
    /** Everything built under this layer reads the shifted clock. */
    layer: Layer.setClock(clock),
    skip: (duration: Duration.DurationInput) => Effect.sync(() => void (skippedMs += Duration.toMillis(duration)))
  }
}
