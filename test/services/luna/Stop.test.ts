import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Layer, Ref } from "effect"
import { BenchServicesLive } from "../../../layers/LunaBench.ts"
import { benchOwner } from "../../../services/luna/bench/Setup.ts"
import { Luna } from "../../../services/luna/Luna.ts"
import { ModelGateway } from "../../../services/luna/ModelGateway.ts"
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
const HeldLuna = Luna.DefaultWithoutDependencies.pipe(Layer.provide(HeldLock), Layer.provideMerge(WorkSessions.Default))

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
})
