import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { MergeFields, type SequenceDefinition } from "../../schema/catalog/Sequences.ts"
import { DAY_MILLIS, localDayStart, nextOpening, utcDayStart } from "./SendPlan.ts"
import { At, authorizedVersion, decodeDefinition, finishEnrollment, Rows } from "./SendRows.ts"

const decodeFields = Schema.decodeUnknownOption(Schema.parseJson(MergeFields))

export interface ClaimedSend {
  readonly sendKey: string
  readonly sequenceId: string
  readonly step: number
  readonly personId: string
  readonly email: string
  readonly attempts: number
  readonly definition: SequenceDefinition
  readonly fields: Readonly<Record<string, string>>
  /** The first step's message: later steps are sent in its thread. */
  readonly threadOf: string | null
  readonly mailbox: { readonly id: string; readonly grantId: string; readonly email: string; readonly displayName: string }
}

export type Claim =
  | { readonly _tag: "Claimed"; readonly send: ClaimedSend }
  /** Nothing to send now; something may change at `until` (a cap's day, the spacing, the window, a hold). */
  | { readonly _tag: "Blocked"; readonly until: Option.Option<number> }

const Candidate = Schema.Struct({
  sendKey: Schema.String,
  sequenceId: Schema.String,
  version: Schema.Int,
  step: Schema.Int,
  personId: Schema.String,
  attempts: Schema.Int,
  email: Schema.String,
  definition: Schema.String,
  fields: Schema.String,
  suppressed: Schema.Boolean,
  threadOf: Schema.NullOr(Schema.String)
})
const Mailbox = Schema.Struct({
  grantId: Schema.String,
  email: Schema.String,
  displayName: Schema.String,
  dailyCap: Schema.Int,
  minSpacingSeconds: Schema.Int
})
const Usage = Schema.Struct({ today: Schema.Int, last: Schema.NullOr(Schema.DateFromSelf) })

/** Which send of a mailbox goes next, within every limit; the one place sends are claimed. */
export class MailboxClaims extends Effect.Service<MailboxClaims>()("brein/sequences/MailboxClaims", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /**
     * Claims the mailbox's next sendable step (state `sending`, leased until `leaseUntil`) and commits,
     * or says until when nothing can go: the mailbox's hold, its daily cap (UTC day) and spacing, then
     * each sequence's window, daily cap (its local day) and spacing. Sends of one mailbox are claimed
     * one at a time across processes (an advisory lock per mailbox).
     */
    const claim = Effect.fn("MailboxClaims.claim")(function* (mailboxId: string, now: number, leaseMs: number) {
      return yield* sql.withTransaction(Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`sequence-mailbox:${mailboxId}`}))`
        const blocked = (until: number | undefined): Claim => ({ _tag: "Blocked", until: Option.fromNullable(until) })
        const [hold] = yield* sql`SELECT hold_until AS at FROM sequence_mailbox_holds
          WHERE mailbox_id = ${mailboxId} AND hold_until > ${new Date(now)}`.pipe(Effect.flatMap(Rows(At)))
        if (hold?.at) return blocked(hold.at.getTime())
        const [mailbox] = yield* sql`SELECT grant_id, email, display_name, daily_cap, min_spacing_seconds FROM mailboxes
          WHERE id = ${mailboxId}`.pipe(Effect.flatMap(Rows(Mailbox)))
        if (mailbox === undefined) return blocked(undefined)
        const usage = (where: Statement.Fragment, dayStart: number) =>
          sql`SELECT (count(*) FILTER (WHERE claimed_at >= ${new Date(dayStart)}))::int AS today, max(claimed_at) AS last
            FROM sequence_sends WHERE ${where} AND state IN ('sending', 'sent')`.pipe(
            Effect.flatMap(Rows(Usage)),
            Effect.map((rows) => rows[0] ?? { today: 0, last: null })
          )
        const mailboxDay = utcDayStart(now)
        const ofMailbox = yield* usage(sql`mailbox_id = ${mailboxId}`, mailboxDay)
        if (ofMailbox.today >= mailbox.dailyCap) return blocked(mailboxDay + DAY_MILLIS)
        const mailboxFree = (ofMailbox.last?.getTime() ?? 0) + mailbox.minSpacingSeconds * 1000
        if (mailboxFree > now) return blocked(mailboxFree)

        const candidates = yield* sql`
          SELECT x.send_key, x.sequence_id, x.version, x.step, x.person_id, x.attempts, e.email, s.definition, r.fields,
            EXISTS (SELECT 1 FROM suppressions p WHERE p.workspace_id = e.workspace_id
              AND lower(p.address) IN (e.email, '@' || split_part(e.email, '@', 2))) AS suppressed,
            (SELECT f.message_id FROM sequence_sends f WHERE f.sequence_id = x.sequence_id AND f.version = x.version
              AND f.person_id = x.person_id AND f.step = 0) AS thread_of
          FROM sequence_sends x
          JOIN sequence_enrollments e ON e.sequence_id = x.sequence_id AND e.version = x.version AND e.person_id = x.person_id
          JOIN sequences s ON s.id = x.sequence_id
          JOIN sequence_recipients r ON r.sequence_id = x.sequence_id AND r.person_id = x.person_id
          WHERE x.mailbox_id = ${mailboxId} AND x.state = 'pending' AND x.due_at <= ${new Date(now)} AND e.state = 'active'
            AND ${authorizedVersion(sql, "x")}
          ORDER BY x.due_at, x.sequence_id, x.step, r.position
          LIMIT 200
          FOR UPDATE OF x SKIP LOCKED`.pipe(Effect.flatMap(Rows(Candidate)))
        let until: number | undefined
        const later = (at: number) => {
          until = until === undefined ? at : Math.min(until, at)
        }
        const sequenceBlocked = new Map<string, number | null>()
        for (const candidate of candidates) {
          const definition = decodeDefinition(candidate.definition)
          if (Option.isNone(definition) || candidate.step >= definition.value.steps.length) {
            yield* sql`UPDATE sequence_sends SET state = 'failed', error = 'the definition cannot be read' WHERE send_key = ${candidate.sendKey}`
            continue
          }
          if (candidate.suppressed) {
            yield* finishEnrollment(sql, candidate, "suppressed", new Date(now), ["active"])
            continue
          }
          if (!sequenceBlocked.has(candidate.sequenceId)) {
            const { daily_cap, spacing_seconds, window } = definition.value.settings
            const opening = nextOpening(window, now)
            if (opening > now) sequenceBlocked.set(candidate.sequenceId, opening)
            else {
              const dayStart = localDayStart(now, window.timezone)
              const ofSequence = yield* usage(sql`sequence_id = ${candidate.sequenceId}`, dayStart)
              const free = (ofSequence.last?.getTime() ?? 0) + spacing_seconds * 1000
              sequenceBlocked.set(
                candidate.sequenceId,
                ofSequence.today >= daily_cap
                  ? nextOpening(window, localDayStart(dayStart + DAY_MILLIS + 3_600_000, window.timezone))
                  : free > now
                  ? free
                  : null
              )
            }
          }
          const sequenceUntil = sequenceBlocked.get(candidate.sequenceId)
          if (sequenceUntil !== null && sequenceUntil !== undefined) {
            later(sequenceUntil)
            continue
          }
          const fields = decodeFields(candidate.fields).pipe(Option.getOrElse(() => ({})))
          yield* sql`UPDATE sequence_sends SET state = 'sending', claimed_at = ${new Date(now)},
            lease_until = ${new Date(now + leaseMs)}, attempts = attempts + 1 WHERE send_key = ${candidate.sendKey}`
          return {
            _tag: "Claimed",
            send: {
              sendKey: candidate.sendKey,
              sequenceId: candidate.sequenceId,
              step: candidate.step,
              personId: candidate.personId,
              email: candidate.email,
              attempts: candidate.attempts + 1,
              definition: definition.value,
              fields,
              threadOf: candidate.threadOf,
              mailbox: { id: mailboxId, grantId: mailbox.grantId, email: mailbox.email, displayName: mailbox.displayName }
            }
          } satisfies Claim
        }
        return blocked(until)
      }))
    }, Effect.orDie)

    return { claim }
  })
}) {}
