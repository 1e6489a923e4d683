import { Clock, Effect, Layer } from "effect"
import { performance } from "node:perf_hooks"
import { chileDayOf, formatPeriodo, parsePeriodo } from "../../services/upstream/CivilDate.ts"

/**
 * The instant a test's services and simulators believe it is when the test starts: noon in Santiago
 * in the middle of a month, so no run crosses a day or a month, and fixed periods stay inside every
 * upstream's window whatever the machine's date.
 */
export const SUITE_NOW = Date.parse("2026-11-16T15:00:00Z")
export const SUITE_DAY = chileDayOf(SUITE_NOW)
export const SUITE_PERIODO = "2026-11"

/** The month `n` months before the suite's current one, as YYYY-MM. */
export const monthsBefore = (n: number) => formatPeriodo(parsePeriodo(SUITE_PERIODO) - n)

/** A clock that reads `start` when made and then advances with real time; its sleeps are real. */
export const clockFrom = (start: number): Clock.Clock => {
  const real = Clock.make()
  const origin = performance.now()
  const millis = () => start + Math.floor(performance.now() - origin)
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: () => BigInt(millis()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    sleep: (duration) => real.sleep(duration)
  }
}

/** Everything built under this layer, and the test that uses it, reads the suite's clock. */
export const SuiteClock = Layer.suspend(() => Layer.setClock(clockFrom(SUITE_NOW)))
