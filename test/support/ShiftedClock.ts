import { Clock, Duration, Effect, Layer } from "effect"
import { clockReading } from "./SuiteClock.ts"

/**
 * A clock for a whole running server: real time plus whatever the test has skipped. Time-based limits
 * see the skip at once, while sleeps (pools, workers, timeouts) stay real, so nothing else stalls.
 */
export const shiftedClock = () => {
  const real = Clock.make()
  let skippedMs = 0
  const clock = clockReading(() => real.unsafeCurrentTimeNanos() + BigInt(skippedMs) * 1_000_000n)
  return {
    /** Everything built under this layer reads the shifted clock. */
    layer: Layer.setClock(clock),
    skip: (duration: Duration.DurationInput) => Effect.sync(() => void (skippedMs += Duration.toMillis(duration)))
  }
}
