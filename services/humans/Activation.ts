import { SqlClient } from "@effect/sql"
import { Array as Arr, Clock, Effect, Option, Schema } from "effect"
import { SequenceConflict, SequenceNotFound } from "../../schema/catalog/SequenceErrors.ts"
import { ActivationRefused } from "../../schema/Errors.ts"
import type { SequenceAuthorization } from "../../schema/humans/Authorization.ts"
import { CurrentHuman, type Human } from "../../schema/humans/Human.ts"
import { isSequenceId, type WorkspaceId } from "../../schema/Ids.ts"
import { ChangeAudit } from "../audit/ChangeAudit.ts"
import { Preflights } from "../catalog/sequences/Preflights.ts"
import { newId } from "../Ids.ts"

const SequenceRow = Schema.Struct({
  workspaceId: Schema.String,
  status: Schema.String,
  version: Schema.Int,
  contentDigest: Schema.String,
  recipientsDigest: Schema.String
})
const LedgerRow = Schema.Struct({
  id: Schema.String,
  sequenceId: Schema.String,
  sequenceVersion: Schema.Int,
  contentDigest: Schema.String,
  recipientsDigest: Schema.String,
  recipients: Schema.Int,
  preflightId: Schema.String,
  userId: Schema.String,
  userEmail: Schema.String,
  sessionId: Schema.String,
  decidedAt: Schema.DateFromSelf
})
const decodeSequences = Schema.decodeUnknown(Schema.Array(SequenceRow))
const decodeLedger = Schema.decodeUnknown(Schema.Array(LedgerRow))

const answer = (row: typeof LedgerRow.Type): SequenceAuthorization => ({
  id: row.id,
  sequence_id: row.sequenceId,
  sequence_version: row.sequenceVersion,
  content_digest: row.contentDigest,
  recipients_digest: row.recipientsDigest,
  recipients: row.recipients,
  preflight_id: row.preflightId,
  user_id: row.userId,
  user_email: row.userEmail,
  session_id: row.sessionId,
  decided_at: row.decidedAt.toISOString()
})

const PREFLIGHT_AGAIN = { tool: "sequence_preflight", reason: "check the sequence as it is now" } as const

/** The human decision that starts a sequence, recorded in the append-only authorization ledger. */
export class Activation extends Effect.Service<Activation>()("brein/humans/Activation", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const changes = yield* ChangeAudit
    const preflights = yield* Preflights

    const lockSequence = Effect.fn("Activation.lockSequence")(function* (sequenceId: string, workspaceId: WorkspaceId) {
      if (!isSequenceId(sequenceId)) return yield* SequenceNotFound.of(sequenceId)
      const rows = yield* sql`SELECT workspace_id, status, version, content_digest, recipients_digest
                              FROM sequences WHERE id = ${sequenceId} FOR UPDATE`.pipe(Effect.flatMap(decodeSequences), Effect.orDie)
      const found = Arr.head(rows).pipe(Option.filter((row) => row.workspaceId === workspaceId))
      return yield* Option.match(found, { onNone: () => Effect.fail(SequenceNotFound.of(sequenceId)), onSome: Effect.succeed })
    })

    /**
     * The decision, inside the caller's transaction: the version the person reviewed is activated when its
     * latest preflight checked exactly that content and those recipients and found no blocker. The sequence
     * is locked, the ledger row written and the sequence made active together, or nothing is.
     */
    const decide = Effect.fn("Activation.decide")(
      function* (human: Human, sequenceId: string, reviewedVersion: number) {
        const sequence = yield* lockSequence(sequenceId, human.principal.workspaceId)
        const refuse = (reason: typeof ActivationRefused.fields.reason.Type, message: string, extra: object = {}) =>
          new ActivationRefused({ reason, message, sequenceId, version: sequence.version, ...extra })
        if (sequence.status !== "draft") {
          return yield* refuse("not_draft", `the sequence is ${sequence.status}, not a draft: only a draft can be activated`)
        }
        if (sequence.version !== reviewedVersion) {
          return yield* refuse(
            "version_mismatch",
            `the sequence changed since you reviewed it: you reviewed version ${reviewedVersion}, it is now version ${sequence.version}`,
            { hint: "Review the sequence again (sequence_get, sequence_preview) and activate the version you reviewed" }
          )
        }
        const preflight = yield* preflights.latest(sequenceId)
        if (Option.isNone(preflight)) {
          return yield* refuse("no_preflight", "the sequence has no preflight: run sequence_preflight first", {
            next_actions: [PREFLIGHT_AGAIN]
          })
        }
        const checked = preflight.value
        if (
          checked.version !== sequence.version || checked.content_digest !== sequence.contentDigest ||
          checked.recipients_digest !== sequence.recipientsDigest
        ) {
          return yield* refuse("preflight_stale", "the sequence changed after its preflight: run sequence_preflight again", {
            preflightId: checked.preflight_id,
            next_actions: [PREFLIGHT_AGAIN]
          })
        }
        if (!checked.ok) {
          return yield* refuse(
            "preflight_blocked",
            `the latest preflight found ${checked.blockers.length} blocker${
              checked.blockers.length === 1 ? "" : "s"
            }: fix them and run sequence_preflight again`,
            { preflightId: checked.preflight_id, blockers: checked.blockers, next_actions: [PREFLIGHT_AGAIN] }
          )
        }
        const [counted] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM sequence_recipients
            WHERE sequence_id = ${sequenceId} AND suppressed_reason IS NULL AND email IS NOT NULL`.pipe(Effect.orDie)
        const recipients = counted?.n ?? 0
        const id = yield* newId("authz")
        const decidedAt = new Date(yield* Clock.currentTimeMillis)
        const rows = yield* sql`INSERT INTO sequence_authorizations (id, workspace_id, sequence_id, sequence_version, content_digest,
              recipients_digest, recipients, preflight_id, user_id, user_email, session_id, decided_at)
            VALUES (${id}, ${human.principal.workspaceId}, ${sequenceId}, ${sequence.version}, ${sequence.contentDigest},
              ${sequence.recipientsDigest}, ${recipients}, ${checked.preflight_id}, ${human.userId}, ${human.email}, ${human.sessionId},
              ${decidedAt})
            RETURNING *`.pipe(Effect.flatMap(decodeLedger), Effect.orDie)
        yield* sql`UPDATE sequences SET status = 'active', activated_at = ${decidedAt}, updated_at = ${decidedAt}
                   WHERE id = ${sequenceId}`.pipe(Effect.orDie)
        const row = yield* Effect.orDie(Arr.head(rows))
        yield* Effect.annotateCurrentSpan({ sequence: sequenceId, version: sequence.version, authorization: id })
        return answer(row)
      }
    )

    /**
     * Activates the version of a sequence the signed-in person reviewed (see `decide`). The decision, its
     * ledger row and its audit row (in the workspace's chain, the person as principal) commit together; a
     * refusal changes nothing and writes neither.
     */
    const activate = Effect.fn("Activation.activate")(function* (sequenceId: string, reviewedVersion: number) {
      const human = yield* CurrentHuman
      return yield* changes.audited(decide(human, sequenceId, reviewedVersion), (authorization) => ({
        workspaceId: human.principal.workspaceId,
        principal: human.userId,
        surface: "http",
        toolId: "sequences.activate",
        connectionId: null,
        input: { sequence_id: sequenceId, version: reviewedVersion },
        output: authorization
      }))
    })

    /**
     * Pauses an active sequence or resumes a paused one, as the signed-in person decides: the dispatcher sends
     * only for an active sequence, so a paused one sends nothing (its pending steps wait) until it is resumed.
     * Asking for the status it already has changes nothing; the change and its audit row commit together.
     */
    const setStatus = (to: "active" | "paused") =>
      Effect.fn(to === "paused" ? "Activation.pause" : "Activation.resume")(function* (sequenceId: string) {
        const human = yield* CurrentHuman
        const from = to === "paused" ? "active" : "paused"
        const change = Effect.gen(function* () {
          const sequence = yield* lockSequence(sequenceId, human.principal.workspaceId)
          const at = new Date(yield* Clock.currentTimeMillis)
          if (sequence.status === to) return { sequence_id: sequenceId, status: to, changed: false, at: at.toISOString() }
          if (sequence.status !== from) {
            return yield* new SequenceConflict({
              reason: to === "paused" ? "not_active" : "not_paused",
              sequenceId,
              status: sequence.status,
              message: `the sequence is ${sequence.status}: only ${
                to === "paused" ? "an active sequence is paused" : "a paused sequence is resumed"
              }`
            })
          }
          yield* sql`UPDATE sequences SET status = ${to}, updated_at = ${at} WHERE id = ${sequenceId}`.pipe(Effect.orDie)
          return { sequence_id: sequenceId, status: to, changed: true, at: at.toISOString() }
        })
        return yield* changes.audited(change, (changed) => ({
          workspaceId: human.principal.workspaceId,
          principal: human.userId,
          surface: "http",
          toolId: to === "paused" ? "sequences.pause" : "sequences.resume",
          connectionId: null,
          input: { sequence_id: sequenceId },
          output: changed
        }))
      })
    const pause = setStatus("paused")
    const resume = setStatus("active")

    /** The ledger rows of a sequence of the workspace, oldest first. */
    const authorizations = Effect.fn("Activation.authorizations")(function* (sequenceId: string, workspaceId: WorkspaceId) {
      if (!isSequenceId(sequenceId)) return yield* SequenceNotFound.of(sequenceId)
      const rows = yield* sql`SELECT * FROM sequence_authorizations WHERE sequence_id = ${sequenceId} AND workspace_id = ${workspaceId}
                              ORDER BY decided_at, id`.pipe(Effect.flatMap(decodeLedger), Effect.orDie)
      if (rows.length === 0) {
        const [exists] = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM sequences
                                    WHERE id = ${sequenceId} AND workspace_id = ${workspaceId}`.pipe(Effect.orDie)
        if ((exists?.n ?? 0) === 0) return yield* SequenceNotFound.of(sequenceId)
      }
      return rows.map(answer)
    })

    return { activate, pause, resume, authorizations } as const
  }),
  dependencies: [ChangeAudit.Default, Preflights.Default]
}) {}
