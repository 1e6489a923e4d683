import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { SequenceDefinition } from "../../schema/catalog/Sequences.ts"
import type { Message } from "../../schema/mail/Nylas.ts"
import { DAY_MILLIS, delayMillis } from "./SendPlan.ts"
import { At, authorizedVersion, decodeDefinition, type EnrollmentKey, finishEnrollment, Rows, sendKeyOf } from "./SendRows.ts"

/** A send is keyed by what it is: one step of one authorized version to one recipient. */
export type StopKind = "replied" | "bounced" | "unsubscribed"

const Sequence = Schema.Struct({
  id: Schema.String,
  version: Schema.Int,
  workspaceId: Schema.String,
  mailboxId: Schema.String,
  definition: Schema.String
})
const Leased = Schema.Struct({ sendKey: Schema.String, grantId: Schema.String, attempts: Schema.Int, definition: Schema.String })
const Stoppable = Schema.Struct({
  sequenceId: Schema.String,
  version: Schema.Int,
  personId: Schema.String,
  workspaceId: Schema.String,
  email: Schema.String,
  definition: Schema.String
})

/** What following an unsubscribe link did: the recipient's address (none when they have none) and whether anything changed. */
export interface Unsubscribed {
  readonly workspaceId: string
  readonly email: string | null
  readonly changed: boolean
}

const Unsubscribing = Schema.Struct({ workspaceId: Schema.String, known: Schema.Boolean, email: Schema.NullOr(Schema.String) })

/** Enrollments, sends, holds and cursors of the dispatcher; every change of several rows is one transaction. */
export class DispatchStore extends Effect.Service<DispatchStore>()("brein/sequences/DispatchStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const authorized = (x: string) => authorizedVersion(sql, x)

    /** Active sequences at an authorized version that have no enrollments yet. */
    const toEnroll = Effect.fn("DispatchStore.toEnroll")(function* () {
      return yield* sql`
        SELECT s.id, s.version, s.workspace_id, s.mailbox_id, s.definition FROM sequences s
        JOIN sequence_authorizations a ON a.sequence_id = s.id AND a.sequence_version = s.version
          AND a.content_digest = s.content_digest AND a.recipients_digest = s.recipients_digest
        WHERE s.status = 'active'
          AND NOT EXISTS (SELECT 1 FROM sequence_enrollments e WHERE e.sequence_id = s.id AND e.version = s.version)
        ORDER BY s.activated_at NULLS LAST, s.id`.pipe(Effect.flatMap(Rows(Sequence)))
    }, Effect.orDie)

    /**
     * Enrolls the sendable recipients (an email, not suppressed when set, not on the workspace's
     * suppression list now, by address or `@domain`) and schedules their first step; a version with nobody
     * sendable completes at once.
     */
    const enroll = Effect.fn("DispatchStore.enroll")(function* (sequence: typeof Sequence.Type, now: Date) {
      const definition = decodeDefinition(sequence.definition)
      const firstDue = new Date(now.getTime() + Option.match(definition, { onNone: () => 0, onSome: (d) => delayMillis(d, 0) }))
      return yield* sql.withTransaction(Effect.gen(function* () {
        const enrolled = yield* sql<{ personId: string }>`
          INSERT INTO sequence_enrollments (sequence_id, version, person_id, workspace_id, mailbox_id, email, state, enrolled_at)
          SELECT r.sequence_id, ${sequence.version}, r.person_id, ${sequence.workspaceId}, ${sequence.mailboxId}, lower(r.email),
            'active', ${now}
          FROM sequence_recipients r
          WHERE r.sequence_id = ${sequence.id} AND r.email IS NOT NULL AND r.suppressed_reason IS NULL
            AND NOT EXISTS (SELECT 1 FROM suppressions x WHERE x.workspace_id = ${sequence.workspaceId}
              AND lower(x.address) IN (lower(r.email), '@' || split_part(lower(r.email), '@', 2)))
          ON CONFLICT DO NOTHING
          RETURNING person_id`
        for (const row of enrolled) {
          yield* sql`
            INSERT INTO sequence_sends (send_key, sequence_id, version, step, person_id, mailbox_id, state, due_at)
            VALUES (${sendKeyOf(sequence.id, sequence.version, 0, row.personId)}, ${sequence.id}, ${sequence.version}, 0,
              ${row.personId}, ${sequence.mailboxId}, 'pending', ${firstDue})
            ON CONFLICT DO NOTHING`
        }
        if (enrolled.length === 0) {
          yield* sql`UPDATE sequences SET status = 'completed' WHERE id = ${sequence.id} AND version = ${sequence.version}
            AND status = 'active'
            AND NOT EXISTS (SELECT 1 FROM sequence_enrollments e WHERE e.sequence_id = ${sequence.id} AND e.version = ${sequence.version})`
        }
        return enrolled.length
      }))
    }, Effect.orDie)

    const dueMailboxes = Effect.fn("DispatchStore.dueMailboxes")(function* (now: Date) {
      const rows = yield* sql<{ mailboxId: string }>`
        SELECT DISTINCT x.mailbox_id FROM sequence_sends x
        WHERE x.state = 'pending' AND x.due_at <= ${now} AND ${authorized("x")} ORDER BY x.mailbox_id`
      return rows.map((r) => r.mailboxId)
    }, Effect.orDie)

    const finish = (key: EnrollmentKey, state: string, now: Date, from: ReadonlyArray<string>) =>
      finishEnrollment(sql, key, state, now, from)

    /** Records the provider's message for a claimed send and schedules the next step (or completes the enrollment). */
    const markSent = Effect.fn("DispatchStore.markSent")(function* (sendKey: string, message: Message, definition: SequenceDefinition) {
      const sentAt = new Date(message.date * 1000)
      return yield* sql.withTransaction(Effect.gen(function* () {
        const [sent] = yield* sql<{ sequenceId: string; version: number; step: number; personId: string; mailboxId: string }>`
          UPDATE sequence_sends SET state = 'sent', message_id = ${message.id}, thread_id = ${message.thread_id}, sent_at = ${sentAt},
            lease_until = NULL, error = NULL
          WHERE send_key = ${sendKey} AND state = 'sending'
          RETURNING sequence_id, version, step, person_id, mailbox_id`
        if (sent === undefined) return false
        const next = sent.step + 1
        if (next >= definition.steps.length) {
          yield* sql`UPDATE sequence_enrollments SET state = 'completed', finished_at = ${sentAt}
            WHERE sequence_id = ${sent.sequenceId} AND version = ${sent.version} AND person_id = ${sent.personId} AND state = 'active'`
          return true
        }
        yield* sql`
          INSERT INTO sequence_sends (send_key, sequence_id, version, step, person_id, mailbox_id, state, due_at)
          SELECT ${sendKeyOf(sent.sequenceId, sent.version, next, sent.personId)}, ${sent.sequenceId}, ${sent.version}, ${next},
            ${sent.personId}, ${sent.mailboxId}, 'pending', ${new Date(sentAt.getTime() + delayMillis(definition, next))}
          WHERE EXISTS (SELECT 1 FROM sequence_enrollments WHERE sequence_id = ${sent.sequenceId} AND version = ${sent.version}
            AND person_id = ${sent.personId} AND state = 'active')
          ON CONFLICT DO NOTHING`
        return true
      }))
    }, Effect.orDie)

    /** A claimed send goes back to the queue, due at `dueAt` (a 429, or a reconciled send the provider never got). */
    const release = Effect.fn("DispatchStore.release")(function* (sendKey: string, dueAt: Date, error: string) {
      yield* sql`UPDATE sequence_sends SET state = 'pending', due_at = ${dueAt}, claimed_at = NULL, lease_until = NULL, error = ${error}
        WHERE send_key = ${sendKey} AND state = 'sending'`
    }, Effect.orDie)

    /** The provider asked to wait: nothing of this mailbox is claimed before `until`. */
    const hold = Effect.fn("DispatchStore.hold")(function* (mailboxId: string, until: Date, reason: string) {
      yield* sql`INSERT INTO sequence_mailbox_holds (mailbox_id, hold_until, reason) VALUES (${mailboxId}, ${until}, ${reason})
        ON CONFLICT (mailbox_id) DO UPDATE SET hold_until = greatest(sequence_mailbox_holds.hold_until, EXCLUDED.hold_until),
          reason = EXCLUDED.reason`
    }, Effect.orDie)

    /** A send that cannot go (refused by the provider, or not renderable): it fails, and so does its enrollment. */
    const fail = Effect.fn("DispatchStore.fail")(function* (sendKey: string, error: string, now: Date) {
      yield* sql.withTransaction(Effect.gen(function* () {
        const [row] = yield* sql<{ sequenceId: string; version: number; personId: string }>`
          UPDATE sequence_sends SET state = 'failed', error = ${error}, lease_until = NULL
          WHERE send_key = ${sendKey} AND state IN ('sending', 'pending') RETURNING sequence_id, version, person_id`
        if (row !== undefined) yield* finish(row, "failed", now, ["active"])
      }))
    }, Effect.orDie)

    /** The outcome of a send is unknown (5xx, timeout): leave it claimed, to be reconciled at `until`. */
    const extendLease = Effect.fn("DispatchStore.extendLease")(function* (sendKey: string, until: Date, error: string) {
      yield* sql`UPDATE sequence_sends SET lease_until = ${until}, error = ${error} WHERE send_key = ${sendKey} AND state = 'sending'`
    }, Effect.orDie)

    /** Claimed sends whose lease ran out: their process died or never heard the provider's answer. */
    const expired = Effect.fn("DispatchStore.expired")(function* (now: Date) {
      return yield* sql`
        SELECT x.send_key, m.grant_id, x.attempts, s.definition FROM sequence_sends x
        JOIN mailboxes m ON m.id = x.mailbox_id JOIN sequences s ON s.id = x.sequence_id
        WHERE x.state = 'sending' AND x.lease_until <= ${now} ORDER BY x.lease_until LIMIT 100`.pipe(Effect.flatMap(Rows(Leased)))
    }, Effect.orDie)

    /**
     * Applies a reply, bounce or unsubscribe to the enrollment whose message it is: the enrollment stops
     * (its pending steps are cancelled) and a bounced or unsubscribed address joins the workspace's
     * suppressions. Unknown when no send carries that message id.
     */
    const stop = Effect.fn("DispatchStore.stop")(function* (messageId: string, kind: StopKind, now: Date) {
      return yield* sql.withTransaction(Effect.gen(function* () {
        const [found] = yield* sql`
          SELECT x.sequence_id, x.version, x.person_id, e.workspace_id, e.email, s.definition FROM sequence_sends x
          JOIN sequence_enrollments e ON e.sequence_id = x.sequence_id AND e.version = x.version AND e.person_id = x.person_id
          JOIN sequences s ON s.id = x.sequence_id
          WHERE x.message_id = ${messageId} LIMIT 1`.pipe(Effect.flatMap(Rows(Stoppable)))
        if (found === undefined) return "unknown" as const
        const stopOnReply = decodeDefinition(found.definition).pipe(
          Option.match({ onNone: () => true, onSome: (d) => d.settings.stop_on_reply })
        )
        if (kind !== "replied" || stopOnReply) yield* finish(found, kind, now, ["active", "completed"])
        if (kind !== "replied") {
          yield* sql`INSERT INTO suppressions (workspace_id, address, reason, source, at)
            VALUES (${found.workspaceId}, ${found.email}, ${kind}, ${`sequence:${found.sequenceId}`}, ${now})
            ON CONFLICT (workspace_id, address) DO NOTHING`
        }
        return "applied" as const
      }))
    }, Effect.orDie)

    /**
     * A recipient who followed their unsubscribe link: their enrollments in the sequence stop (pending steps
     * cancelled) and their address joins the workspace's suppressions as unsubscribed. None when the
     * sequence has no such person (neither a recipient nor enrolled); `changed` is false when there was
     * nothing to do (a second click, or a recipient with no address, who is never written to).
     */
    const unsubscribe = Effect.fn("DispatchStore.unsubscribe")(function* (sequenceId: string, personId: string, now: Date) {
      return yield* sql.withTransaction(Effect.gen(function* () {
        const [found] = yield* sql`
          SELECT s.workspace_id,
            EXISTS (SELECT 1 FROM sequence_enrollments e WHERE e.sequence_id = s.id AND e.person_id = ${personId})
              OR EXISTS (SELECT 1 FROM sequence_recipients r WHERE r.sequence_id = s.id AND r.person_id = ${personId}) AS known,
            coalesce(
              (SELECT e.email FROM sequence_enrollments e WHERE e.sequence_id = s.id AND e.person_id = ${personId} ORDER BY e.version DESC LIMIT 1),
              (SELECT r.email FROM sequence_recipients r WHERE r.sequence_id = s.id AND r.person_id = ${personId})) AS email
          FROM sequences s WHERE s.id = ${sequenceId}`.pipe(Effect.flatMap(Rows(Unsubscribing)))
        if (found === undefined || !found.known) return Option.none<Unsubscribed>()
        if (found.email === null) return Option.some<Unsubscribed>({ workspaceId: found.workspaceId, email: null, changed: false })
        const email = found.email.toLowerCase()
        // Locked: clicks at once wait here for the first to commit, then find nothing active (one change, one audit row).
        const stopped = yield* sql<{ version: number }>`
          SELECT version FROM sequence_enrollments WHERE sequence_id = ${sequenceId} AND person_id = ${personId} AND state = 'active'
          ORDER BY version FOR UPDATE`
        for (const { version } of stopped) yield* finish({ sequenceId, version, personId }, "unsubscribed", now, ["active"])
        const suppressed = yield* sql`INSERT INTO suppressions (workspace_id, address, reason, source, at)
            VALUES (${found.workspaceId}, ${email}, 'unsubscribed', ${`link:${sequenceId}`}, ${now})
            ON CONFLICT (workspace_id, address) DO UPDATE SET reason = EXCLUDED.reason, source = EXCLUDED.source, at = EXCLUDED.at
            WHERE suppressions.reason <> 'unsubscribed'
            RETURNING address`
        return Option.some<Unsubscribed>({ workspaceId: found.workspaceId, email, changed: stopped.length > 0 || suppressed.length > 0 })
      }))
    }, Effect.orDie)

    /** Grants whose notifications matter: their mailbox sent something in the last 30 days or has a send in flight. */
    const watchedGrants = Effect.fn("DispatchStore.watchedGrants")(function* (now: Date) {
      const rows = yield* sql<{ grantId: string }>`
        SELECT DISTINCT m.grant_id FROM mailboxes m JOIN sequence_sends x ON x.mailbox_id = m.id
        WHERE x.state = 'sending' OR (x.state = 'sent' AND x.sent_at > ${new Date(now.getTime() - 30 * DAY_MILLIS)})
        ORDER BY m.grant_id`
      return rows.map((r) => r.grantId)
    }, Effect.orDie)

    const inFlight = Effect.fn("DispatchStore.inFlight")(function* (grantId: string) {
      const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM sequence_sends x JOIN mailboxes m ON m.id = x.mailbox_id
        WHERE m.grant_id = ${grantId} AND x.state = 'sending'`
      return (rows[0]?.n ?? 0) > 0
    }, Effect.orDie)

    const cursor = Effect.fn("DispatchStore.cursor")(function* (grantId: string) {
      const rows = yield* sql<{ after: string }>`SELECT after FROM sequence_mail_cursors WHERE grant_id = ${grantId}`
      return Option.fromNullable(rows[0]?.after)
    }, Effect.orDie)

    const saveCursor = Effect.fn("DispatchStore.saveCursor")(function* (grantId: string, after: string, now: Date) {
      yield* sql`INSERT INTO sequence_mail_cursors (grant_id, after, read_at) VALUES (${grantId}, ${after}, ${now})
        ON CONFLICT (grant_id) DO UPDATE SET after = EXCLUDED.after, read_at = EXCLUDED.read_at`
    }, Effect.orDie)

    /** Active authorized sequences whose enrollments have all finished become `completed`; their ids. */
    const complete = Effect.fn("DispatchStore.complete")(function* () {
      const rows = yield* sql<{ id: string }>`
        UPDATE sequences s SET status = 'completed'
        WHERE s.status = 'active'
          AND EXISTS (SELECT 1 FROM sequence_authorizations a WHERE a.sequence_id = s.id AND a.sequence_version = s.version
            AND a.content_digest = s.content_digest AND a.recipients_digest = s.recipients_digest)
          AND EXISTS (SELECT 1 FROM sequence_enrollments e WHERE e.sequence_id = s.id AND e.version = s.version)
          AND NOT EXISTS (SELECT 1 FROM sequence_enrollments e WHERE e.sequence_id = s.id AND e.version = s.version AND e.state = 'active')
          AND NOT EXISTS (SELECT 1 FROM sequence_sends x WHERE x.sequence_id = s.id AND x.version = s.version AND x.state = 'sending')
        RETURNING s.id`
      return rows.map((r) => r.id)
    }, Effect.orDie)

    /** The next moment something is due after `now`: a scheduled step, a lease to reconcile, a hold's end. */
    const nextDue = Effect.fn("DispatchStore.nextDue")(function* (now: Date) {
      const [row] = yield* sql`SELECT least(
          (SELECT min(x.due_at) FROM sequence_sends x WHERE x.state = 'pending' AND x.due_at > ${now} AND ${authorized("x")}),
          (SELECT min(lease_until) FROM sequence_sends WHERE state = 'sending'),
          (SELECT min(hold_until) FROM sequence_mailbox_holds WHERE hold_until > ${now})) AS at`.pipe(Effect.flatMap(Rows(At)))
      return Option.fromNullable(row?.at).pipe(Option.map((at) => at.getTime()))
    }, Effect.orDie)

    /** A stored definition (validated when it was written). */
    const definitionOf = Effect.fn("DispatchStore.definitionOf")(function* (text: string) {
      return yield* Schema.decodeUnknown(Schema.parseJson(SequenceDefinition))(text)
    }, Effect.orDie)

    return {
      definitionOf,
      toEnroll,
      enroll,
      dueMailboxes,
      markSent,
      release,
      hold,
      fail,
      extendLease,
      expired,
      stop,
      unsubscribe,
      watchedGrants,
      inFlight,
      cursor,
      saveCursor,
      complete,
      nextDue
    }
  })
}) {}
