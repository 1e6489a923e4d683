import { Clock, Effect, Layer } from "effect"
import { performance } from "node:perf_hooks"
import { chileDayOf } from "../../services/upstream/CivilDate.ts"

/**
 * The instant a test's services and simulators believe it is when the test starts: noon in Santiago
 * in the middle of a month, so no run crosses a day or a month, and fixed periods stay inside every
 * upstream's window whatever the machine's date.
 */
export const SUITE_NOW = Date.parse("2026-11-16T15:00:00Z")
export const SUITE_DAY = chileDayOf(SUITE_NOW)
export const SUITE_PERIODO = "2026-11"

/** A clock that reads `start` when made and then advances with real time; its sleeps are real. */
/** A clock that reads `nanos` and sleeps in real time. */
export const clockReading = (nanos: () => bigint): Clock.Clock => {
  const real = Clock.make()
  const millis = () => Number(nanos() / 1_000_000n)
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: nanos,
    currentTimeNanos: Effect.sync(nanos),
    sleep: (duration) => real.sleep(duration)
  }
}

const clockFrom = (start: number): Clock.Clock => {
  const origin = performance.now()
  return clockReading(() => BigInt(start) * 1_000_000n + BigInt(Math.floor((performance.now() - origin) * 1e6)))
}

/**
 * One clock for the whole test file: service graphs built at different moments (two "processes"
 * in one test) agree on the time, so their session logs can be merged and compared.
 */
export const suiteClock = clockFrom(SUITE_NOW)

/** Everything built under this layer, and the test that uses it, reads the suite's clock. */
export const SuiteClock = Layer.setClock(suiteClock)
