import { Clock, Duration, Effect, Either, Option } from "effect"
import type { NotificationType, SendRequest } from "../../schema/mail/Nylas.ts"
import { renderMessage } from "../catalog/sequences/Render.ts"
import { UnsubscribeLinks } from "../catalog/sequences/UnsubscribeLinks.ts"
import { transientIn } from "../Database.ts"
import { MailClient } from "../mail/MailClient.ts"
import { DispatchSettings } from "./DispatchSettings.ts"
import { DispatchStore, type StopKind } from "./DispatchStore.ts"
import { type ClaimedSend, MailboxClaims } from "./MailboxClaims.ts"

const STOPS: Record<NotificationType, StopKind> = {
  "message.bounce_detected": "bounced",
  "message.reply_received": "replied",
  "message.unsubscribe_requested": "unsubscribed"
}

const earliest = (times: ReadonlyArray<Option.Option<number>>): Option.Option<number> =>
  times.reduce((a, b) => Option.isNone(a) ? b : Option.isNone(b) ? a : Option.some(Math.min(a.value, b.value)), Option.none<number>())

/**
 * Sends active sequences at their authorized version through the mail provider: enrolls their sendable
 * recipients, sends each step when due within the mailbox's and the sequence's limits, waits out the
 * provider's 429s, stops an enrollment on a reply, bounce or unsubscribe, and completes a sequence
 * once every enrollment finished. A send is claimed and committed before the provider is called, with
 * its key in the message's metadata; a claim whose lease ran out is settled by asking the provider for
 * that key, so a restart never sends twice.
 */
export class Dispatcher extends Effect.Service<Dispatcher>()("brein/sequences/Dispatcher", {
  effect: Effect.gen(function* () {
    const store = yield* DispatchStore
    const links = yield* UnsubscribeLinks
    const claims = yield* MailboxClaims
    const mail = yield* MailClient
    const settings = yield* DispatchSettings
    const leaseMs = Duration.toMillis(settings.lease)
    const backoff = (attempts: number) => Math.min(leaseMs, 10_000 * 2 ** Math.max(0, attempts - 1))

    const enroll = Effect.fn("Dispatcher.enroll")(function* (now: number) {
      for (const sequence of yield* store.toEnroll()) {
        const enrolled = yield* store.enroll(sequence, new Date(now))
        yield* Effect.logInfo("sequence enrolled").pipe(
          Effect.annotateLogs({ sequenceId: sequence.id, version: sequence.version, enrolled })
        )
      }
    })

    /** Bounces, replies and unsubscribes; a notification about a message still being settled is read again next pass. */
    const readNotifications = Effect.fn("Dispatcher.readNotifications")(function* (now: number) {
      for (const grantId of yield* store.watchedGrants(new Date(now))) {
        const page = yield* Effect.either(mail.notifications(grantId, yield* store.cursor(grantId)))
        if (Either.isLeft(page)) {
          yield* Effect.logWarning("mail notifications unreadable").pipe(Effect.annotateLogs({ grantId, error: page.left.message }))
          continue
        }
        let deferred = false
        for (const notification of page.right.data) {
          const applied = yield* store.stop(notification.data.object.message_id, STOPS[notification.type], new Date(now))
          if (applied === "unknown" && (yield* store.inFlight(grantId))) deferred = true
        }
        if (!deferred) yield* store.saveCursor(grantId, page.right.next_cursor, new Date(now))
      }
    })

    /** A claim whose lease ran out: sent if the provider holds its key, otherwise queued again (or failed after too many tries). */
    const reconcile = Effect.fn("Dispatcher.reconcile")(function* (now: number) {
      for (const leased of yield* store.expired(new Date(now))) {
        const found = yield* Effect.either(mail.findByMetadata(leased.grantId, "send_key", leased.sendKey))
        if (Either.isLeft(found)) {
          yield* store.extendLease(leased.sendKey, new Date(now + backoff(leased.attempts)), found.left.message)
        } else if (Option.isSome(found.right)) {
          const definition = yield* store.definitionOf(leased.definition)
          yield* store.markSent(leased.sendKey, found.right.value, definition)
          yield* Effect.logInfo("send reconciled: the provider had it").pipe(Effect.annotateLogs({ sendKey: leased.sendKey }))
        } else if (leased.attempts >= settings.maxAttempts) {
          yield* store.fail(leased.sendKey, `no answer from the provider after ${leased.attempts} attempts`, new Date(now))
        } else {
          yield* store.release(leased.sendKey, new Date(now), "the provider never got it")
        }
      }
    })

    /** Renders exactly what the preview shows and sends it; what the provider said decides the send's state. */
    const deliver = Effect.fn("Dispatcher.deliver")(function* (send: ClaimedSend) {
      yield* Effect.annotateCurrentSpan({ "sequence.send_key": send.sendKey })
      const step = send.definition.steps[send.step]
      const now = yield* Clock.currentTimeMillis
      if (step === undefined) return yield* store.fail(send.sendKey, `no step ${send.step}`, new Date(now))
      const unsubscribe = yield* links.writer()
      const message = renderMessage({
        sequenceId: send.sequenceId,
        step,
        recipient: { id: send.personId, fields: send.fields },
        settings: send.definition.settings,
        unsubscribe
      })
      const problems = [...message.missing.map((m) => `missing ${m}`), ...message.unresolved.map((u) => `unresolved ${u}`)]
      if (message.subject === "") problems.push("empty subject")
      if (problems.length > 0) return yield* store.fail(send.sendKey, `not sendable: ${problems.join(", ")}`, new Date(now))
      const request: SendRequest = {
        to: [{ email: send.email }],
        from: [{ email: send.mailbox.email, name: send.mailbox.displayName }],
        subject: message.subject,
        body: message.body,
        metadata: { send_key: send.sendKey },
        // one click from the mail client (RFC 8058): the same link as the message's, answered by a POST
        custom_headers: [
          { name: "List-Unsubscribe", value: `<${unsubscribe(send.sequenceId, send.personId)}>` },
          { name: "List-Unsubscribe-Post", value: "List-Unsubscribe=One-Click" }
        ],
        ...(send.threadOf === null ? {} : { reply_to_message_id: send.threadOf })
      }
      const outcome = yield* Effect.either(mail.send(send.mailbox.grantId, request))
      const after = yield* Clock.currentTimeMillis
      if (Either.isRight(outcome)) return yield* store.markSent(send.sendKey, outcome.right, send.definition)
      const error = outcome.left
      switch (error.kind) {
        case "throttled": {
          const until = new Date(after + error.retryAfterMillis)
          yield* store.hold(send.mailbox.id, until, error.detail)
          yield* store.release(send.sendKey, until, error.message)
          return yield* Effect.logInfo("provider asked to wait").pipe(
            Effect.annotateLogs({ mailboxId: send.mailbox.id, until: until.toISOString() })
          )
        }
        case "rejected":
          return yield* store.fail(send.sendKey, error.message, new Date(after))
        case "unknown":
          return yield* store.extendLease(send.sendKey, new Date(after + backoff(send.attempts)), error.message)
      }
    })

    /** Sends what the mailbox may send now; until when it must wait otherwise. */
    const drain = Effect.fn("Dispatcher.drain")(function* (mailboxId: string) {
      while (true) {
        const claim = yield* claims.claim(mailboxId, yield* Clock.currentTimeMillis, leaseMs)
        if (claim._tag === "Blocked") return claim.until
        yield* deliver(claim.send)
      }
    })

    /** One pass: enroll, read notifications, settle expired claims, send what is due, complete; when the next pass is due. */
    const tick = Effect.fn("Dispatcher.tick")(function* () {
      const now = yield* Clock.currentTimeMillis
      yield* enroll(now)
      yield* readNotifications(now)
      yield* reconcile(now)
      const mailboxes = yield* store.dueMailboxes(new Date(now))
      const blocked = yield* Effect.forEach(mailboxes, drain, { concurrency: settings.concurrency })
      const completed = yield* store.complete()
      if (completed.length > 0) yield* Effect.logInfo("sequences completed").pipe(Effect.annotateLogs({ sequences: completed.join(",") }))
      return earliest([...blocked, yield* store.nextDue(new Date(yield* Clock.currentTimeMillis))])
    })

    /**
     * Passes forever, each as soon as something is due (never later than the poll). Each pass is a trace of
     * its own (Dispatcher.tick): a span around the loop would never end, and every pass would join its trace.
     */
    const run = Effect.gen(function* () {
      const next = yield* tick().pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(
            // The database being away is expected to pass: a warning, as a 503 is; the next pass tries again.
            Option.isSome(transientIn(cause))
              ? Effect.logWarning("dispatcher pass: database unavailable, trying again at the next pass", cause)
              : Effect.logError("dispatcher pass failed", cause),
            Option.none<number>()
          )
        )
      )
      const now = yield* Clock.currentTimeMillis
      const poll = Duration.toMillis(settings.poll)
      const wait = Option.match(next, { onNone: () => poll, onSome: (at) => Math.min(poll, Math.max(at - now, 250)) })
      yield* Effect.sleep(Duration.millis(wait))
    }).pipe(Effect.forever)

    return { tick, run }
  }),
  dependencies: [DispatchStore.Default, MailboxClaims.Default]
}) {}
