import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option, Queue, Ref, TestClock } from "effect"
import { awaitWork } from "../../../services/sync/SyncWorker.ts"

/** A read of the next due time that takes a second of the test clock, and records how it ended. */
const slowRead = Effect.gen(function* () {
  const started = yield* Deferred.make<void>()
  const interrupted = yield* Ref.make(false)
  const finished = yield* Ref.make(false)
  const read = Deferred.succeed(started, undefined).pipe(
    Effect.zipRight(Effect.sleep(Duration.seconds(1))),
    Effect.zipRight(Ref.set(finished, true)),
    Effect.as(Duration.minutes(1)),
    Effect.onInterrupt(() => Ref.set(interrupted, true))
  )
  return { read, started: Deferred.await(started), interrupted: Ref.get(interrupted), finished: Ref.get(finished) }
})

describe("the sync worker's wait for work", () => {
  it.effect("a wake during the read of the next due time leaves the read alone, and ends the wait once it is read", () =>
    Effect.gen(function* () {
      const wake = yield* Queue.sliding<void>(1)
      const read = yield* slowRead
      const waiting = yield* Effect.fork(awaitWork(read.read, wake))
      yield* read.started
      yield* Queue.offer(wake, undefined)
      yield* TestClock.adjust(Duration.seconds(1))
      // the due time read is a minute away: only the wake queued during the read can end the wait now
      yield* Fiber.join(waiting)
      assert.isFalse(yield* read.interrupted, "the read was interrupted (its statement would be canceled)")
      assert.isTrue(yield* read.finished)
      assert.strictEqual(yield* Queue.size(wake), 0, "the wake was taken")
    }))

  it.effect("a stop during the read ends the wait without waiting for the read (a database that stopped answering holds no shutdown)", () =>
    Effect.gen(function* () {
      const wake = yield* Queue.sliding<void>(1)
      const read = yield* slowRead
      const waiting = yield* Effect.fork(awaitWork(read.read, wake))
      yield* read.started
      yield* Fiber.interrupt(waiting)
      assert.isTrue(yield* read.interrupted)
      assert.isFalse(yield* read.finished)
    }))

  it.effect("without a wake it sleeps until the next job is due", () =>
    Effect.gen(function* () {
      const wake = yield* Queue.sliding<void>(1)
      const waiting = yield* Effect.fork(awaitWork(Effect.succeed(Duration.seconds(30)), wake))
      yield* TestClock.adjust(Duration.seconds(29))
      assert.isTrue(Option.isNone(yield* Fiber.poll(waiting)), "woke before the job was due")
      yield* TestClock.adjust(Duration.seconds(1))
      yield* Fiber.join(waiting)
    }))
})
