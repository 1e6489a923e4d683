import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Chunk, Deferred, Effect, Either, Fiber, Layer, Ref, Stream } from "effect"
import { BenchServicesLive } from "../../../layers/LunaBench.ts"
import type { EventBody } from "../../../schema/luna/Events.ts"
import { newIdNow } from "../../../services/Ids.ts"
import { benchOwner } from "../../../services/luna/bench/Setup.ts"
import { FOLLOW_REST, Luna } from "../../../services/luna/Luna.ts"
import { ModelGateway } from "../../../services/luna/ModelGateway.ts"
import { SessionStates } from "../../../services/luna/SessionStates.ts"
import { WorkSessions } from "../../../services/luna/WorkSessions.ts"
import { SessionLock } from "../../../services/sync/SessionLock.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

/** A model that never answers: a turn runs until something stops it. */
const SilentModel = Layer.succeed(ModelGateway, ModelGateway.of({ ready: Effect.void, complete: () => Effect.never }))

/** Holds the taking of one session's turn lease (a start past its check of the stop) until the test lets it go. */
class Hold extends Effect.Service<Hold>()("test/luna/Hold", {
  effect: Effect.all({ key: Ref.make(""), reached: Deferred.make<void>(), go: Deferred.make<void>() })
}) {}

const HeldLock = Layer.effect(
  SessionLock,
  Effect.gen(function* () {
    const lock = yield* SessionLock
    const hold = yield* Hold
    return SessionLock.make({
      ...lock,
      tryAcquire: (key: string, named?: string) =>
        Effect.flatMap(
          Ref.get(hold.key),
          (held) =>
            key !== held ? lock.tryAcquire(key, named) : Deferred.succeed(hold.reached, undefined).pipe(
              Effect.zipRight(Deferred.await(hold.go)),
              Effect.zipRight(lock.tryAcquire(key, named))
            )
        )
    })
  })
).pipe(Layer.provide(SessionLock.Default))

/** A Luna of its own (its own stop), over the test's services, whose lease taking the test holds. */
const HeldLuna = Luna.DefaultWithoutDependencies.pipe(
  Layer.provide(HeldLock),
  Layer.provideMerge(Layer.merge(WorkSessions.Default, SessionStates.Default))
)

const StopTest = BenchServicesLive.pipe(Layer.provideMerge(SilentModel), Layer.provideMerge(Hold.Default), Layer.provideMerge(TestDatabase))

const leaseOf = (sessionId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ readonly holder: string }>`SELECT holder FROM session_leases WHERE key = ${`luna:turn:${sessionId}`}`
  )

layer(StopTest, { timeout: "60 seconds" })("a stop of the service", (it) => {
  it.effect("a message past the stop check when the stop begins has its turn started and stopped before the stop returns", () =>
    Effect.gen(function* () {
      const hold = yield* Hold
      const who = yield* benchOwner("stop-race", "paid")
      yield* Effect.gen(function* () {
        const luna = yield* Luna
        const session = yield* luna.create(who, { stage: "prospectando" })
        yield* Ref.set(hold.key, `luna:turn:${session.id}`)
        const starting = yield* Effect.fork(Effect.either(luna.start(who, session.id, "justo antes del cierre")))
        yield* Deferred.await(hold.reached)
        const stopping = yield* Effect.fork(luna.stop())
        // the stop has done what it does without waiting: it has ended, or it waits for the start
        yield* Effect.repeat(Effect.zipLeft(Fiber.status(stopping), Effect.yieldNow()), { until: (status) => status._tag !== "Running" })
        yield* Deferred.succeed(hold.go, undefined)
        const started = yield* Fiber.join(starting)
        yield* Fiber.join(stopping)
        const view = yield* luna.view(who, session.id)
        assert.isTrue(Either.isRight(started), "the start had passed the check: it is not refused")
        assert.deepStrictEqual(view.turns.map((turn) => turn.status), ["failed"], "no turn runs once the stop has returned")
        assert.deepStrictEqual(yield* leaseOf(session.id), [])
        const refused = yield* Effect.flip(luna.start(who, session.id, "después"))
        assert.strictEqual(refused._tag, "ServiceUnavailable")
      }).pipe(Effect.provide(HeldLuna))
    }))

  it.effect(`a reader let go at the stop reads at most ${FOLLOW_REST} more events, then where to resume`, () =>
    Effect.gen(function* () {
      const who = yield* benchOwner("stop-follow", "paid")
      yield* Effect.gen(function* () {
        const luna = yield* Luna
        const sessions = yield* WorkSessions
        const session = yield* luna.create(who, { stage: "prospectando" })
        const total = FOLLOW_REST + 300
        const place = { turnId: newIdNow("turn"), parentTurnId: null, variant: 1 }
        const bodies: Array<EventBody> = [{ type: "turn.started", stage: "prospectando" }]
        for (let n = 1; n < total; n++) bodies.push({ type: "message.user", text: `mensaje ${n}` })
        yield* sessions.append(session.id, place, bodies)
        // a live reader far behind: it has taken one event when the stop comes, and reads on only after it
        const first = yield* Deferred.make<void>()
        const stopped = yield* Deferred.make<void>()
        const reader = yield* Effect.fork(Effect.flatMap(luna.follow(who, session.id, 0), (events) =>
          events.pipe(
            Stream.tap(() => Effect.zipRight(Deferred.succeed(first, undefined), Deferred.await(stopped))),
            Stream.runCollect
          )))
        yield* Deferred.await(first)
        yield* luna.stop()
        yield* Deferred.succeed(stopped, undefined)
        const read = Chunk.toReadonlyArray(yield* Fiber.join(reader))
        const last = read.at(-1)
        const events = read.slice(0, -1).flatMap((event) => event.type === "stream.resume" ? [] : [event.seq])
        assert.strictEqual(last?.type, "stream.resume")
        assert.isBelow(events.length, total)
        assert.deepStrictEqual(events, Array.from({ length: events.length }, (_, i) => i + 1), "in order, none skipped")
        assert.strictEqual(last?.type === "stream.resume" ? last.after : -1, events.at(-1))
        // a reader that comes after the stop reads at most the cap too; one resuming from the marker reads the rest
        const late = Chunk.toReadonlyArray(yield* Stream.runCollect(yield* luna.follow(who, session.id, 0)))
        assert.strictEqual(late.length, FOLLOW_REST + 1)
        const marker = late.at(-1)
        assert.deepStrictEqual(marker?.type === "stream.resume" ? [marker.type, marker.after] : [], ["stream.resume", FOLLOW_REST])
        assert.include(marker?.type === "stream.resume" ? marker.message : "", `resume after event ${FOLLOW_REST}`)
        const resumed = Chunk.toReadonlyArray(yield* Stream.runCollect(yield* luna.follow(who, session.id, FOLLOW_REST)))
        assert.deepStrictEqual(
          resumed.map((event) => event.type === "stream.resume" ? -1 : event.seq),
          Array.from({ length: 300 }, (_, i) => FOLLOW_REST + i + 1)
        )
      }).pipe(Effect.provide(HeldLuna))
    }))
})
