import { Clock, Duration, Effect, Layer, Option, TestClock } from "effect"
import { mailSimulated, type MailSimulatedOptions } from "../../../layers/Mail.ts"
import type { Message } from "../../../schema/mail/Nylas.ts"
import { UnsubscribeLinks } from "../../../services/catalog/sequences/UnsubscribeLinks.ts"
import { Dispatcher } from "../../../services/sequences/Dispatcher.ts"
import { DISPATCH_DEFAULTS, DispatchSettings } from "../../../services/sequences/DispatchSettings.ts"
import { MailSimulatorControl } from "../../../services/simulators/mail/MailSimulatorServer.ts"
import { SUITE_NOW } from "../../support/SuiteClock.ts"
import { auditKeyInTemp } from "../../support/TestAuditKey.ts"

/** A Monday, 15:00 UTC. */
export const START = SUITE_NOW
export const DAY = 86_400_000

export const TestDispatchSettings = Layer.succeed(DispatchSettings, { ...DISPATCH_DEFAULTS, enabled: true })

/** A dispatcher instance (a process's), over whatever mail client and database the test provides; its links are signed with a key of its own. */
export const dispatcherInstance = Dispatcher.Default.pipe(
  Layer.provide(TestDispatchSettings),
  Layer.provide(UnsubscribeLinks.Default.pipe(Layer.provide(auditKeyInTemp)))
)

/** The provider simulator (no latency, nothing bounces unless scripted) and one dispatcher over it; build inside the test, on its clock. */
export const dispatching = (options: MailSimulatedOptions = {}) =>
  dispatcherInstance.pipe(Layer.provideMerge(mailSimulated({ latencyMs: 0, bounceRate: 0, ...options })))

/**
 * What the background loop does, on the test's clock: a pass, then straight to the moment the pass
 * said something is due next, until nothing is due before `until` (the clock is then left at `until`).
 */
export const driveUntil = (until: number) =>
  Effect.gen(function* () {
    const dispatcher = yield* Dispatcher
    for (let passes = 0; passes < 5000; passes++) {
      const next = yield* dispatcher.tick()
      const now = yield* Clock.currentTimeMillis
      if (Option.isNone(next) || next.value > until) {
        if (now < until) yield* TestClock.setTime(until)
        return passes
      }
      yield* TestClock.setTime(Math.max(next.value, now + 1))
    }
    return yield* Effect.dieMessage("the dispatcher never ran out of work")
  })

export const at = (iso: string) => Date.parse(iso)

export const sentMessages = (grantId?: string) => Effect.flatMap(MailSimulatorControl, (control) => control.messages(grantId))

export const sendKeys = (messages: ReadonlyArray<Message>) => messages.map((m) => m.metadata["send_key"] ?? "")

/** How many times the provider holds each send key: exactly once each is the dispatcher's promise. */
export const timesEachSent = (messages: ReadonlyArray<Message>) => {
  const counts = new Map<string, number>()
  for (const key of sendKeys(messages)) counts.set(key, (counts.get(key) ?? 0) + 1)
  return [...counts.values()]
}

export const gapsSeconds = (messages: ReadonlyArray<Message>) => {
  const dates = messages.map((m) => m.date).sort((a, b) => a - b)
  return dates.slice(1).map((d, i) => d - (dates[i] ?? d))
}

export const seconds = (d: Duration.DurationInput) => Duration.toSeconds(Duration.decode(d))
