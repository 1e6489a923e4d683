import { assert, layer } from "@effect/vitest"
import { Chunk, Context, Effect, Layer, TestClock, TestServices } from "effect"
import { DispatcherWorker } from "../../../layers/Dispatch.ts"
import { mailSimulated } from "../../../layers/Mail.ts"
import { DISPATCH_DEFAULTS } from "../../../services/sequences/DispatchSettings.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { Spans, spansNamed, SpansTest } from "../../support/Spans.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { dispatcherInstance, sentMessages, START, TestDispatchSettings } from "./DispatchHarness.ts"
import { seedSequence, sequenceStatus } from "./DispatchRows.ts"

const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => TestServices.provideLive(effect)
/** The worker's loop is asleep on the test clock, waiting for the next due send. */
const asleep = Effect.flatMap(
  TestClock.testClock(),
  (clock) => live(waitUntil(clock.sleeps, (sleeps) => Chunk.size(sleeps) > 0, { what: "the dispatcher going to sleep" }))
)

layer(TestDatabase)("DispatcherWorker", (it) => {
  it.scoped("runs passes in the background as the clock moves, each when the next send is due", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: ["ana@cliente.cl", "beto@cliente.cl"], mailbox: { spacingSeconds: 40 } })
      yield* Layer.build(DispatcherWorker.pipe(Layer.provide(dispatcherInstance), Layer.provide(TestDispatchSettings)))
      yield* live(waitUntil(sentMessages(seeded.grantId), (all) => all.length === 1, { what: "the first send" }))
      yield* asleep
      yield* TestClock.adjust("39 seconds")
      yield* asleep
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 1, "the mailbox's spacing holds")
      // The clock moves a second at a time until the worker has sent again: a pass may still be running
      // when a step of the clock lands, and then it sleeps from where it read the time.
      const clock = yield* TestClock.testClock()
      const [first, second] = yield* live(
        waitUntil(Effect.zipRight(clock.adjust("1 second"), sentMessages(seeded.grantId)), (all) => all.length === 2, {
          what: "the second send"
        })
      )
      assert.isAtLeast((second?.date ?? 0) - (first?.date ?? 0), 40, "the second went no sooner than the mailbox's spacing")
      yield* live(
        waitUntil(Effect.zipRight(clock.adjust("1 second"), sequenceStatus(seeded.sequenceId)), (status) => status === "completed", {
          what: "completion"
        })
      )
    }).pipe(Effect.provide(mailSimulated({ latencyMs: 0, bounceRate: 0 }))))

  it.scoped("each pass of the loop is a trace of its own: no span stays open around the loop", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const worker = yield* Layer.build(
        DispatcherWorker.pipe(Layer.provide(dispatcherInstance), Layer.provide(TestDispatchSettings), Layer.provideMerge(SpansTest))
      )
      const ticks = Effect.map(Context.get(worker, Spans).finished, (spans) => spansNamed(spans, "Dispatcher.tick"))
      yield* live(waitUntil(ticks, (found) => found.length >= 1, { what: "the first pass" }))
      yield* asleep
      yield* TestClock.adjust(DISPATCH_DEFAULTS.poll)
      const [first, second] = yield* live(waitUntil(ticks, (found) => found.length >= 2, { what: "the second pass" }))
      assert.isUndefined(first?.parentId)
      assert.isUndefined(second?.parentId)
      assert.notStrictEqual(first?.traceId, second?.traceId)
    }).pipe(Effect.provide(mailSimulated({ latencyMs: 0, bounceRate: 0 }))))
})
