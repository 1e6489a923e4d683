import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { SequenceStore } from "../../../services/catalog/sequences/SequenceStore.ts"
import { Dispatcher } from "../../../services/sequences/Dispatcher.ts"
import { MailFault, MailSimulatorControl } from "../../../services/simulators/mail/MailSimulatorServer.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { DAY, dispatching, driveUntil, gapsSeconds, sentMessages, START, timesEachSent } from "./DispatchHarness.ts"
import { authorize, digestsOf, enrollmentStates, seedSequence, sendStates, sequenceStatus, suppressionsOf } from "./DispatchRows.ts"

const emails = (n: number, domain = "cliente.cl") => Array.from({ length: n }, (_, i) => `persona${i}@${domain}`)
const utcDay = (message: { readonly date: number }) => new Date(message.date * 1000).toISOString().slice(0, 10)

layer(TestDatabase)("Dispatcher", (it) => {
  it.effect("the mailbox's daily cap holds: cap + 2 recipients → cap sent today, the rest tomorrow", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: emails(5), mailbox: { dailyCap: 3, spacingSeconds: 60 } })
      yield* driveUntil(Date.parse("2026-11-16T23:59:00Z"))
      const today = yield* sentMessages(seeded.grantId)
      assert.deepStrictEqual(today.map(utcDay), ["2026-11-16", "2026-11-16", "2026-11-16"])
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "active")
      yield* driveUntil(START + 2 * DAY)
      const all = yield* sentMessages(seeded.grantId)
      assert.deepStrictEqual(all.map(utcDay), ["2026-11-16", "2026-11-16", "2026-11-16", "2026-11-17", "2026-11-17"])
      assert.strictEqual(all[3]?.date, Date.parse("2026-11-17T00:00:00Z") / 1000, "the rest go when the day turns")
      assert.deepStrictEqual(timesEachSent(all), [1, 1, 1, 1, 1])
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "completed")
    }).pipe(Effect.provide(dispatching())))

  it.effect("the sequence's own daily cap holds too, counted in its window's time zone", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({
        recipients: emails(3),
        settings: {
          daily_cap: 2,
          window: { start_hour: 0, end_hour: 24, timezone: "America/Santiago", days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] }
        }
      })
      yield* driveUntil(START + 2 * DAY)
      const all = yield* sentMessages(seeded.grantId)
      assert.strictEqual(all.length, 3)
      // Santiago is UTC-3 in November: its next day starts at 03:00 UTC
      assert.strictEqual(new Date((all[2]?.date ?? 0) * 1000).toISOString(), "2026-11-17T03:00:00.000Z")
    }).pipe(Effect.provide(dispatching())))

  it.effect("spacing and step delays hold: no two sends of a mailbox closer than its spacing, each step after its delay, in thread", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({
        recipients: emails(4),
        steps: [{ delay: 0 }, { delay: 2, unit: "days" }, { delay: 90, unit: "minutes" }],
        mailbox: { spacingSeconds: 45 },
        settings: { spacing_seconds: 100 }
      })
      yield* driveUntil(START + 5 * DAY)
      const all = yield* sentMessages(seeded.grantId)
      assert.strictEqual(all.length, 12)
      assert.deepStrictEqual(timesEachSent(all), Array.from({ length: 12 }, () => 1))
      assert.isTrue(gapsSeconds(all).every((gap) => gap >= 100), `gaps: ${gapsSeconds(all).join(",")}`)
      for (const person of seeded.personIds) {
        const steps = all.filter((m) => m.metadata["send_key"]?.endsWith(person)).sort((a, b) => a.date - b.date)
        assert.strictEqual(steps.length, 3)
        const [first, second, third] = steps
        assert.isAtLeast((second?.date ?? 0) - (first?.date ?? 0), 2 * 86_400)
        assert.isAtLeast((third?.date ?? 0) - (second?.date ?? 0), 90 * 60)
        assert.isBelow((second?.date ?? 0) - (first?.date ?? 0), 2 * 86_400 + 600, "not later than the spacing makes it")
        assert.isTrue(steps.every((m) => m.thread_id === first?.thread_id), "follow-ups stay in the first message's thread")
      }
      assert.deepStrictEqual(Object.values(yield* enrollmentStates(seeded.sequenceId)), [
        "completed",
        "completed",
        "completed",
        "completed"
      ])
    }).pipe(Effect.provide(dispatching())))

  it.effect("the sending window: nothing goes outside it; the first send waits for the window to open", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-11-20T23:00:00Z")) // Friday 20:00 in Santiago
      const seeded = yield* seedSequence({
        recipients: emails(1),
        settings: { window: { start_hour: 9, end_hour: 17, timezone: "America/Santiago" } }
      })
      yield* driveUntil(Date.parse("2026-11-25T00:00:00Z"))
      const all = yield* sentMessages(seeded.grantId)
      assert.deepStrictEqual(
        all.map((m) => new Date(m.date * 1000).toISOString()),
        ["2026-11-23T12:00:00.000Z"],
        "Monday 09:00 in Santiago"
      )
    }).pipe(Effect.provide(dispatching())))

  it.effect("a 429 with Retry-After is waited out, then the send goes (once)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: emails(1) })
      const control = yield* MailSimulatorControl
      const dispatcher = yield* Dispatcher
      yield* control.inject(MailFault.Throttle({ times: 1, retryAfterSeconds: 120 }))
      yield* dispatcher.tick()
      yield* dispatcher.tick()
      yield* TestClock.adjust("119 seconds")
      yield* dispatcher.tick()
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 0)
      assert.deepStrictEqual((yield* control.log).map((entry) => entry.status), [429], "nothing is tried while the provider asked to wait")
      assert.deepStrictEqual((yield* sendStates(seeded.sequenceId)).map(([, state]) => state), ["pending"])
      yield* TestClock.adjust("1 second")
      yield* dispatcher.tick()
      assert.deepStrictEqual((yield* control.log).map((entry) => entry.status), [429, 200])
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 1)
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "completed")
    }).pipe(Effect.provide(dispatching())))

  it.effect("a bounce stops that recipient and suppresses the address; the others go on", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({
        recipients: ["rebote@bounce.example.com", "ana@cliente.cl"],
        steps: [{ delay: 0 }, { delay: 1 }]
      })
      yield* driveUntil(START + 3 * DAY)
      const all = yield* sentMessages(seeded.grantId)
      assert.deepStrictEqual(all.map((m) => m.to[0]?.email), ["rebote@bounce.example.com", "ana@cliente.cl", "ana@cliente.cl"])
      const [bounced, ana] = seeded.personIds
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [bounced ?? ""]: "bounced", [ana ?? ""]: "completed" })
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [["rebote@bounce.example.com", "bounced"]])
      assert.include((yield* sendStates(seeded.sequenceId)).map(([, s]) => s), "cancelled")
      // what sequence_get shows of it: recipients and messages of the version by state
      const delivery = yield* Effect.flatMap(SequenceStore, (store) => store.delivery(seeded.sequenceId, seeded.version))
      assert.deepStrictEqual(delivery.enrollments, { bounced: 1, completed: 1 })
      assert.deepStrictEqual(delivery.sends, { sent: 3, cancelled: 1 })
      assert.strictEqual(delivery.lastSentAt?.getTime(), (all[2]?.date ?? 0) * 1000)
    }).pipe(Effect.provide(Layer.merge(dispatching(), SequenceStore.Default))))

  it.effect("a reply stops the rest of the steps (without suppressing the address)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: ["luis@reply.example.com"], steps: [{ delay: 0 }, { delay: 2 }, { delay: 2 }] })
      yield* driveUntil(START + 10 * DAY)
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 1)
      assert.deepStrictEqual(Object.values(yield* enrollmentStates(seeded.sequenceId)), ["replied"])
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "completed")
    }).pipe(Effect.provide(dispatching({ replyAfterMs: 3_600_000 }))))

  it.effect("every message carries the one-click unsubscribe headers (RFC 8058), with the link its body has", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: emails(2), steps: [{ delay: 0 }, { delay: 1 }] })
      yield* driveUntil(START + 3 * DAY)
      const sent = yield* sentMessages(seeded.grantId)
      assert.strictEqual(sent.length, 4)
      for (const message of sent) {
        const header = (name: string) => message.headers?.find((h) => h.name === name)?.value
        const link = /^<(http[^>]+\/u\/[^>]+)>$/.exec(header("List-Unsubscribe") ?? "")?.[1] ?? ""
        assert.include(message.body, link, "the header's link is the body's")
        assert.notStrictEqual(link, "")
        assert.strictEqual(header("List-Unsubscribe-Post"), "List-Unsubscribe=One-Click")
      }
    }).pipe(Effect.provide(dispatching())))

  it.effect("an unsubscribe stops the recipient and suppresses the address for the workspace's other sequences", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const first = yield* seedSequence({ recipients: ["eva@cliente.cl"], steps: [{ delay: 0 }, { delay: 1 }] })
      const dispatcher = yield* Dispatcher
      yield* dispatcher.tick()
      const [sent] = yield* sentMessages(first.grantId)
      yield* (yield* MailSimulatorControl).notify("message.unsubscribe_requested", sent?.id ?? "")
      const second = yield* seedSequence({ recipients: ["EVA@cliente.cl", "otro@cliente.cl"], workspaceId: first.workspaceId })
      yield* driveUntil(START + 3 * DAY)
      assert.strictEqual((yield* sentMessages(first.grantId)).length, 1)
      assert.deepStrictEqual(Object.values(yield* enrollmentStates(first.sequenceId)), ["unsubscribed"])
      assert.deepStrictEqual(yield* suppressionsOf(first.workspaceId), [["eva@cliente.cl", "unsubscribed"]])
      assert.deepStrictEqual((yield* sentMessages(second.grantId)).map((m) => m.to[0]?.email), ["otro@cliente.cl"])
    }).pipe(Effect.provide(dispatching())))

  it.effect("suppressions hold by address or @domain, whether added before enrollment or while the sequence runs", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: ["ana@cliente.cl", "beto@tarde.cl", "carla@bloqueado.cl"], authorize: null })
      const sql = yield* SqlClient.SqlClient
      const suppress = (address: string) =>
        sql`INSERT INTO suppressions (workspace_id, address, reason, source, at)
          VALUES (${seeded.workspaceId}, ${address}, 'blocked_domain', 'operator', now())`
      yield* suppress("@Bloqueado.cl")
      const digests = yield* digestsOf(seeded.sequenceId)
      yield* authorize({
        workspaceId: seeded.workspaceId,
        sequenceId: seeded.sequenceId,
        version: 1,
        content: digests.contentDigest,
        recipients: digests.recipientsDigest,
        count: 3
      })
      yield* (yield* Dispatcher).tick()
      yield* suppress("@tarde.cl")
      yield* driveUntil(START + DAY)
      assert.deepStrictEqual((yield* sentMessages(seeded.grantId)).map((m) => m.to[0]?.email), ["ana@cliente.cl"])
      const [ana, beto] = seeded.personIds
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [ana ?? ""]: "completed", [beto ?? ""]: "suppressed" })
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "completed")
    }).pipe(Effect.provide(dispatching())))

  it.effect("a paused sequence sends nothing (its steps wait, it does not complete); resumed, it sends what fell due, each once", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: emails(2), steps: [{ delay: 0 }, { delay: 2 }] })
      const status = (to: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE sequences SET status = ${to} WHERE id = ${seeded.sequenceId}`)
      yield* driveUntil(START + DAY)
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 2, "the first step went out")
      // what POST /api/v1/sequences/{id}/pause writes (the route is tested over HTTP)
      yield* status("paused")
      yield* driveUntil(START + 10 * DAY)
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 2, "nothing while paused, the second step long due")
      assert.deepStrictEqual(Object.values(yield* enrollmentStates(seeded.sequenceId)), ["active", "active"])
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "paused")
      yield* status("active")
      yield* driveUntil(START + 11 * DAY)
      const sent = yield* sentMessages(seeded.grantId)
      assert.strictEqual(sent.length, 4)
      assert.deepStrictEqual(timesEachSent(sent), [1, 1, 1, 1])
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "completed")
    }).pipe(Effect.provide(dispatching())))

  it.effect("only an authorized version is sent: a ledger row for another version (or other content) sends nothing", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(START)
      const seeded = yield* seedSequence({ recipients: emails(2), version: 2, authorize: 1 })
      yield* driveUntil(START + DAY)
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 0)
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), {})
      assert.strictEqual(yield* sequenceStatus(seeded.sequenceId), "active")
      const digests = yield* digestsOf(seeded.sequenceId)
      const ledger = { workspaceId: seeded.workspaceId, sequenceId: seeded.sequenceId, version: 2, count: 2 }
      const tampered = yield* seedSequence({ recipients: emails(1), authorize: null })
      yield* authorize({
        ...ledger,
        sequenceId: tampered.sequenceId,
        version: 1,
        content: "0".repeat(64),
        recipients: digests.recipientsDigest
      })
      yield* driveUntil(START + 2 * DAY)
      assert.strictEqual((yield* sentMessages(tampered.grantId)).length, 0, "the ledger row authorized other content")
      yield* authorize({ ...ledger, content: digests.contentDigest, recipients: digests.recipientsDigest })
      yield* driveUntil(START + 3 * DAY)
      assert.strictEqual((yield* sentMessages(seeded.grantId)).length, 2)
      assert.isTrue((yield* sentMessages(seeded.grantId)).every((m) => m.metadata["send_key"]?.includes(":v2:")))
    }).pipe(Effect.provide(dispatching())))
})
