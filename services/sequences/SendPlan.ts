import { DateTime } from "effect"
import type { DelayUnit, SendingWindow, SequenceDefinition, Weekday } from "../../schema/catalog/Sequences.ts"

const UNIT_MS: Record<DelayUnit, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 }
const WEEKDAYS: ReadonlyArray<Weekday> = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
const DAY_MS = 86_400_000
const GRID_MS = 15 * 60_000

/** How long after the previous step (or the enrollment, for the first) step `index` is due. */
export const delayMillis = (definition: SequenceDefinition, index: number): number => {
  const step = definition.steps[index]
  return step === undefined ? 0 : step.delay * UNIT_MS[step.delay_unit]
}

const localParts = (at: number, timeZone: string) => DateTime.toParts(DateTime.unsafeMakeZoned(at, { timeZone }))

export const insideWindow = (window: SendingWindow, at: number): boolean => {
  const parts = localParts(at, window.timezone)
  const day = WEEKDAYS[parts.weekDay]
  return day !== undefined && window.days.includes(day) && parts.hours >= window.start_hour && parts.hours < window.end_hour
}

/** The first instant at or after `at` inside the sending window (on a quarter-hour grid when outside). */
export const nextOpening = (window: SendingWindow, at: number): number => {
  if (insideWindow(window, at)) return at
  let candidate = Math.ceil(at / GRID_MS) * GRID_MS
  for (let i = 0; i < (8 * DAY_MS) / GRID_MS; i++, candidate += GRID_MS) {
    if (insideWindow(window, candidate)) return candidate
  }
  return candidate
}

/** Midnight of `at`'s day in the time zone (a sequence's daily cap counts the sends of its own local day). */
export const localDayStart = (at: number, timeZone: string): number => {
  const parts = localParts(at, timeZone)
  return at - ((parts.hours * 60 + parts.minutes) * 60 + parts.seconds) * 1000 - parts.millis
}

/** Midnight UTC of `at`'s day: a mailbox's daily cap counts the sends of its UTC day, as the provider does. */
export const utcDayStart = (at: number): number => Math.floor(at / DAY_MS) * DAY_MS

export const DAY_MILLIS = DAY_MS
