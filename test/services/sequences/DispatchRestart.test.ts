import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, TestClock, TestServices } from "effect"
import { mailSimulated } from "../../../layers/Mail.ts"
import { Dispatcher } from "../../../services/sequences/Dispatcher.ts"
import { type MailFault, MailFault as Fault, MailSimulatorControl } from "../../../services/simulators/mail/MailSimulatorServer.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { DAY, dispatcherInstance, driveUntil, sentMessages, START, timesEachSent } from "./DispatchHarness.ts"
import { seedSequence, sendStates, sequenceStatus } from "./DispatchRows.ts"

/** One process's dispatcher: a fresh instance over the same database and provider. */
const asProcess = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, dispatcherInstance)

/**
 * Starts a pass in a process of its own, waits until the provider shows the fault struck (the send is
 * claimed and committed by then), and kills that process.
 */
const killDuring = (fault: MailFault) =>
  Effect.gen(function* () {
    const control = yield* MailSimulatorControl
    yield* control.inject(fault)
    const process = yield* Effect.fork(asProcess(Effect.flatMap(Dispatcher, (dispatcher) => dispatcher.tick())))
    yield* waitUntil(control.log, (log) => log.some((entry) => entry.fault === fault._tag), { what: `the ${fault._tag} fault` }).pipe(
      TestServices.provideLive
    )
    yield* Fiber.interrupt(process)
  })

const recipients = ["ana@cliente.cl", "beto@cliente.cl"]

layer(TestDatabase)("Dispatcher restart", (it) => {
  it.effect("killed after the provider accepted, before marking sent: the next process finds the send by its key and sends nothing twice", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients, steps: [{ delay: 0 }, { delay: 1 }] })
      yield* killDuring(Fault.AcceptThenHang({ times: 1 }))
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 1, "the provider accepted the first send")
      assert.include((yield* sendStates(seeded.sequenceId)).map(([, state]) => state), "sending", "the dead process never marked it sent")

      yield* asProcess(Effect.gen(function* () {
        yield* (yield* Dispatcher).tick()
        assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 1, "a claim still leased is left alone")
        yield* driveUntil(START + 4 * DAY)
      }))
      const all = yield* sentMessages(seeded.grantId)
      assert.strictEqual(all.length, 4)
      assert.deepStrictEqual(timesEachSent(all), [1, 1, 1, 1])
      assert.deepStrictEqual((yield* sendStates(seeded.sequenceId)).map(([, state]) => state), ["sent", "sent", "sent", "sent"])
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "completed")
    }).pipe(Effect.provide(mailSimulated({ latencyMs: 0, bounceRate: 0 }))))

  it.effect("killed after claiming, before the provider got it: the next process finds no message with the key and sends it once", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients })
      yield* killDuring(Fault.Hang({ times: 1 }))
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 0)
      assert.deepStrictEqual((yield* sendStates(seeded.sequenceId)).map(([, state]) => state).sort(), ["pending", "sending"])
      yield* asProcess(driveUntil(START + DAY))
      const all = yield* sentMessages(seeded.grantId)
      assert.deepStrictEqual(timesEachSent(all), [1, 1])
      assert.deepStrictEqual(all.map((m) => m.to[0]?.email).sort(), recipients)
    }).pipe(Effect.provide(mailSimulated({ latencyMs: 0, bounceRate: 0 }))))

  it.effect("a 5xx leaves the outcome unknown: the send is reconciled, then sent once", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: recipients.slice(0, 1) })
      yield* (yield* MailSimulatorControl).inject(Fault.Status({ status: 503, times: 2 }))
      yield* asProcess(driveUntil(START + DAY))
      const all = yield* sentMessages(seeded.grantId)
      assert.deepStrictEqual(timesEachSent(all), [1])
      assert.deepStrictEqual((yield* (yield* MailSimulatorControl).log).map((entry) => entry.status), [503, 503, 200])
    }).pipe(Effect.provide(mailSimulated({ latencyMs: 0, bounceRate: 0 }))))
})
