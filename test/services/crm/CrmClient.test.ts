import { assert, describe, layer } from "@effect/vitest"
import type { Exit } from "effect"
import { Effect, Fiber, Option, TestClock, TestServices } from "effect"
import { crmSimulated } from "../../../layers/Crm.ts"
import { CrmClient } from "../../../services/crm/CrmClient.ts"
import { CrmFault, CrmSimulatorControl } from "../../../services/simulators/crm/CrmSimulatorServer.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { uniqueName } from "../../support/TestLayers.ts"

/** Client and simulator built inside the test: the schedules and the rate bucket both run on its TestClock. */
const simulated = (rate = 100) =>
  crmSimulated({ latencyMs: 0, rate, windowSeconds: 10, timeout: "1 hour", retry: { rateLimitedRetries: 3, transientRetries: 3 } })

/** Runs `effect` while moving the test clock half a second at a time, so its waits elapse without real sleeps. */
const driven = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect)
    const step = Effect.zipRight(TestServices.provideLive(Effect.sleep("5 millis")), TestClock.adjust("500 millis"))
    const done = yield* Effect.iterate(Option.none<Exit.Exit<A, E>>(), {
      while: Option.isNone,
      body: () => Effect.zipRight(step, Fiber.poll(fiber))
    })
    return yield* Option.getOrThrow(done)
  })

const everything = { filterGroups: [] }

const statuses = (portal: string) =>
  Effect.map(
    Effect.flatMap(CrmSimulatorControl, (control) => control.log),
    (log) => log.filter((entry) => entry.portal === portal).map((entry) => entry.status)
  )

layer(TestDatabase)("CrmClient", (it) => {
  describe("rate limits", () => {
    it.effect("waits out a 429 for its Retry-After and succeeds (the simulator saw one refused attempt)", () =>
      Effect.gen(function* () {
        const portal = uniqueName("ws_c")
        const crm = yield* CrmClient
        yield* crm.search(portal, "companies", everything)
        yield* crm.search(portal, "companies", everything)
        const third = yield* driven(crm.search(portal, "companies", everything))
        assert.strictEqual(third.total, 0)
        assert.deepStrictEqual(yield* statuses(portal), [200, 200, 429, 200])
      }).pipe(Effect.provide(simulated(2))))

    it.effect("gives up after its retries with CrmUnavailable (rate_limited) and the Retry-After to honour", () =>
      Effect.gen(function* () {
        const portal = uniqueName("ws_c")
        const crm = yield* CrmClient
        yield* (yield* CrmSimulatorControl).inject(CrmFault.Throttle({ times: 10, retryAfterSeconds: 2 }))
        const error = yield* driven(Effect.flip(crm.search(portal, "contacts", everything)))
        assert.strictEqual(error._tag, "CrmUnavailable")
        if (error._tag === "CrmUnavailable") assert.deepStrictEqual([error.reason, error.retryAfterSeconds], ["rate_limited", 2])
        assert.deepStrictEqual(yield* statuses(portal), [429, 429, 429, 429], "the first try and three retries")
      }).pipe(Effect.provide(simulated())))
  })

  it.effect("retries a 5xx with backoff and succeeds; a persistent 5xx becomes CrmUnavailable", () =>
    Effect.gen(function* () {
      const portal = uniqueName("ws_c")
      const crm = yield* CrmClient
      const control = yield* CrmSimulatorControl
      yield* control.inject(CrmFault.Status({ status: 503, times: 2 }))
      const page = yield* driven(crm.search(portal, "companies", everything))
      assert.strictEqual(page.total, 0)
      assert.deepStrictEqual(yield* statuses(portal), [503, 503, 200])
      yield* control.inject(CrmFault.Status({ status: 502, times: 10 }))
      const error = yield* driven(Effect.flip(crm.search(portal, "companies", everything)))
      assert.deepStrictEqual([error._tag, error._tag === "CrmUnavailable" ? error.reason : ""], ["CrmUnavailable", "unavailable"])
      assert.strictEqual((yield* control.log).filter((entry) => entry.status === 502).length, 4)
    }).pipe(Effect.provide(simulated())))

  it.effect("a 404 is no record; a request the CRM calls invalid is CrmRejected, not retried", () =>
    Effect.gen(function* () {
      const portal = uniqueName("ws_c")
      const crm = yield* CrmClient
      assert.isTrue(Option.isNone(yield* crm.get(portal, "companies", "424242")))
      const error = yield* Effect.flip(crm.batchUpsert(portal, "companies", []))
      assert.deepStrictEqual([error._tag, error._tag === "CrmRejected" ? error.status : 0], ["CrmRejected", 400])
      assert.deepStrictEqual(yield* statuses(portal), [404, 400])
    }).pipe(Effect.provide(simulated())))
})
