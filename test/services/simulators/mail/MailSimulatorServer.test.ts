import { NodeHttpServer } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, TestClock } from "effect"
import type { SendRequest } from "../../../../schema/mail/Nylas.ts"
import { MailClient, MailSettings } from "../../../../services/mail/MailClient.ts"
import { scriptedFate } from "../../../../services/simulators/mail/MailScript.ts"
import {
  MailFault,
  MailSimulatorControl,
  type MailSimulatorOptions,
  MailSimulatorServer
} from "../../../../services/simulators/mail/MailSimulatorServer.ts"
import { MailSimulatorStore } from "../../../../services/simulators/mail/MailSimulatorStore.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { uniqueName } from "../../../support/TestLayers.ts"

const apiKey = Redacted.make("nyk_test_key")
const START = Date.parse("2026-11-16T15:00:00Z")

/** The simulator on an in-process server and the client over it, built inside the test so its clock is the test's. */
const simulator = (options: Partial<MailSimulatorOptions> = {}, key = apiKey) =>
  MailClient.Default.pipe(
    Layer.provide(Layer.succeed(MailSettings, { baseUrl: "", apiKey: key })),
    Layer.provideMerge(MailSimulatorServer.layer({ apiKey, latencyMs: 0, bounceRate: 0, ...options })),
    Layer.provide(MailSimulatorStore.Default),
    Layer.provide(NodeHttpServer.layerTest)
  )

const message = (to: string, sendKey: string): SendRequest => ({
  to: [{ email: to }],
  subject: "Hola",
  body: "Cuerpo",
  metadata: { send_key: sendKey }
})

const failure = <A, R>(effect: Effect.Effect<A, unknown, R>) =>
  Effect.map(Effect.flip(effect), (error) =>
    typeof error === "object" && error !== null && "kind" in error && "retryAfterMillis" in error
      ? { kind: error.kind, retryAfterMillis: error.retryAfterMillis }
      : { kind: "other", retryAfterMillis: 0 })

layer(TestDatabase)("MailSimulatorServer", (it) => {
  it.effect("sends, finds a message by its send key, and keeps a follow-up in its thread", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const mail = yield* MailClient
      const grant = uniqueName("grant")
      const sent = yield* mail.send(grant, message("ana@example.cl", "k-1"))
      assert.strictEqual(sent.grant_id, grant)
      assert.strictEqual(sent.date, START / 1000)
      assert.deepStrictEqual(sent.metadata, { send_key: "k-1" })
      const found = yield* mail.findByMetadata(grant, "send_key", "k-1")
      assert.strictEqual(Option.map(found, (m) => m.id).pipe(Option.getOrNull), sent.id)
      assert.isTrue(Option.isNone(yield* mail.findByMetadata(grant, "send_key", "k-2")))
      assert.isTrue(Option.isNone(yield* mail.findByMetadata(uniqueName("grant"), "send_key", "k-1")), "another grant holds none")
      yield* TestClock.adjust("30 seconds")
      const followUp = yield* mail.send(grant, { ...message("ana@example.cl", "k-2"), reply_to_message_id: sent.id })
      assert.strictEqual(followUp.thread_id, sent.thread_id, "a follow-up stays in the thread")
    }).pipe(Effect.provide(simulator())))

  it.effect("a wrong key is 401", () =>
    Effect.gen(function* () {
      const mail = yield* MailClient
      const refused = yield* failure(mail.send("grant-x", message("ana@example.cl", "k")))
      assert.deepStrictEqual(refused, { kind: "rejected", retryAfterMillis: 0 })
    }).pipe(Effect.provide(simulator({}, Redacted.make("nyk_wrong")))))

  it.effect("enforces the grant's spacing and daily cap with 429 rate_limit_error and Retry-After", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const mail = yield* MailClient
      const grant = uniqueName("grant")
      yield* mail.send(grant, message("a@example.cl", "a"))
      yield* TestClock.adjust("10 seconds")
      assert.deepStrictEqual(yield* failure(mail.send(grant, message("b@example.cl", "b"))), {
        kind: "throttled",
        retryAfterMillis: 20_000
      })
      yield* mail.send(uniqueName("grant"), message("b@example.cl", "b"))
      yield* TestClock.adjust("20 seconds")
      yield* mail.send(grant, message("b@example.cl", "b"))
      yield* TestClock.adjust("30 seconds")
      const capped = yield* failure(mail.send(grant, message("c@example.cl", "c")))
      // 15:01:00 → midnight UTC is 8 h 59 min away
      assert.deepStrictEqual(capped, { kind: "throttled", retryAfterMillis: (8 * 3600 + 59 * 60) * 1000 })
      yield* TestClock.adjust("9 hours")
      yield* mail.send(grant, message("c@example.cl", "c"))
      const control = yield* MailSimulatorControl
      assert.strictEqual((yield* control.messages(grant)).length, 3)
    }).pipe(Effect.provide(simulator({ dailyCap: 2, minSpacingMs: 30_000 }))))

  it.effect("faults: 429, 5xx, accept-then-hang (stored, never answered)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const mail = yield* MailClient
      const control = yield* MailSimulatorControl
      const grant = uniqueName("grant")
      yield* control.inject(MailFault.Throttle({ times: 1, retryAfterSeconds: 7 }))
      assert.deepStrictEqual(yield* failure(mail.send(grant, message("a@example.cl", "a"))), { kind: "throttled", retryAfterMillis: 7000 })
      yield* control.inject(MailFault.Status({ status: 503, times: 1 }))
      assert.deepStrictEqual(yield* failure(mail.send(grant, message("a@example.cl", "a"))), { kind: "unknown", retryAfterMillis: 0 })
      assert.strictEqual((yield* control.messages(grant)).length, 0, "neither fault stored a message")
      yield* control.inject(MailFault.AcceptThenHang({ times: 1 }))
      const hung = yield* Effect.fork(mail.send(grant, message("a@example.cl", "a")))
      yield* Effect.repeat(control.messages(grant), { until: (all) => all.length === 1 })
      yield* TestClock.adjust("31 seconds")
      assert.deepStrictEqual(
        yield* failure(hung.await.pipe(Effect.flatten)),
        { kind: "unknown", retryAfterMillis: 0 },
        "the client timed out"
      )
      assert.isTrue(Option.isSome(yield* mail.findByMetadata(grant, "send_key", "a")), "yet the provider holds it")
      assert.deepStrictEqual((yield* control.log).map((entry) => [entry.status, entry.fault]), [[429, "Throttle"], [503, "Status"], [
        0,
        "AcceptThenHang"
      ]])
    }).pipe(Effect.provide(simulator())))

  it.effect("bounces, replies and unsubscribes arrive on the grant's notification feed, each when it happens", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const mail = yield* MailClient
      const control = yield* MailSimulatorControl
      const grant = uniqueName("grant")
      const bounced = yield* mail.send(grant, message("x@bounce.example.com", "b"))
      yield* TestClock.adjust("30 seconds")
      const replied = yield* mail.send(grant, message("y@reply.example.com", "r"))
      const first = yield* mail.notifications(grant, Option.none())
      assert.deepStrictEqual(first.data.map((n) => [n.type, n.data.object.message_id]), [["message.bounce_detected", bounced.id]])
      yield* TestClock.adjust("30 seconds")
      const plain = yield* mail.send(grant, message("z@example.com", "p"))
      yield* control.notify("message.unsubscribe_requested", plain.id)
      const second = yield* mail.notifications(grant, Option.some(first.next_cursor))
      assert.deepStrictEqual(second.data.map((n) => [n.type, n.data.object.address]), [["message.unsubscribe_requested", "z@example.com"]])
      yield* TestClock.adjust("1 hour")
      const third = yield* mail.notifications(grant, Option.some(second.next_cursor))
      assert.deepStrictEqual(third.data.map((n) => [n.type, n.data.object.message_id]), [["message.reply_received", replied.id]])
      assert.deepStrictEqual((yield* mail.notifications(grant, Option.some(third.next_cursor))).data, [])
    }).pipe(Effect.provide(simulator())))

  it("a seeded share of addresses bounces, the same on every run", () => {
    const addresses = Array.from({ length: 2000 }, (_, i) => `persona${i}@empresa${i % 37}.cl`)
    const bounced = addresses.filter((a) => scriptedFate({ seed: "s", bounceRate: 0.05 }, a) === "bounce")
    assert.isAbove(bounced.length, 60)
    assert.isBelow(bounced.length, 140)
    assert.deepStrictEqual(addresses.filter((a) => scriptedFate({ seed: "s", bounceRate: 0.05 }, a) === "bounce"), bounced)
    assert.notDeepEqual(addresses.filter((a) => scriptedFate({ seed: "t", bounceRate: 0.05 }, a) === "bounce"), bounced)
  })
})
