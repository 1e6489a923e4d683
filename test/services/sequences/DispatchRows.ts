import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { SequenceDefinition } from "../../../schema/catalog/Sequences.ts"
import { contentDigest, definitionText, type DigestedRecipient, recipientsDigest } from "../../../services/catalog/sequences/Digest.ts"

const id = (prefix: string) => `${prefix}${randomBytes(5).toString("hex")}`
const decodeDefinition = Schema.decodeUnknownSync(SequenceDefinition)

export interface StepSpec {
  readonly delay: number
  readonly unit?: "minutes" | "hours" | "days"
}

export interface SequenceSpec {
  readonly recipients: ReadonlyArray<string | null>
  readonly steps?: ReadonlyArray<StepSpec>
  readonly mailbox?: { readonly dailyCap?: number; readonly spacingSeconds?: number }
  readonly settings?: Record<string, unknown>
  /** Which version the ledger authorizes (the sequence's own by default; null: none). */
  readonly authorize?: number | null
  readonly version?: number
  /** Another workspace's sequence shares nothing with this one's suppressions. */
  readonly workspaceId?: string
}

export interface SeededSequence {
  readonly workspaceId: string
  readonly sequenceId: string
  readonly mailboxId: string
  readonly grantId: string
  readonly version: number
  readonly personIds: ReadonlyArray<string>
}

/** A workspace, a mailbox (a grant at the provider), an active sequence with its recipients, and the ledger row, as activation leaves them. */
export const seedSequence = (spec: SequenceSpec) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const workspaceId = spec.workspaceId ?? id("ws_")
    if (spec.workspaceId === undefined) yield* sql`INSERT INTO workspaces (id, name, plan) VALUES (${workspaceId}, ${workspaceId}, 'paid')`
    const mailboxId = id("mb_")
    const grantId = id("grant-")
    yield* sql`INSERT INTO mailboxes (id, workspace_id, email, display_name, grant_id, spf, dkim, dmarc, daily_cap, min_spacing_seconds, created_at)
      VALUES (${mailboxId}, ${workspaceId}, ${`ventas-${mailboxId}@acme.cl`}, 'Ventas Acme', ${grantId}, true, true, true,
        ${spec.mailbox?.dailyCap ?? 700}, ${spec.mailbox?.spacingSeconds ?? 30}, now())`
    const sequenceId = id("sq_")
    const definition = decodeDefinition({
      name: sequenceId,
      mailbox_id: mailboxId,
      steps: (spec.steps ?? [{ delay: 0 }]).map((step, i) => ({
        id: `s${i + 1}`,
        delay: step.delay,
        delay_unit: step.unit ?? "days",
        subject: i === 0 ? "Una idea para {{company|tu equipo}}" : "Re: una idea",
        body: `Hola {{first_name|equipo}}, paso ${i + 1}. {{unsubscribe}}`
      })),
      settings: {
        sender_identity: "Acme SpA",
        physical_address: "Av. Apoquindo 1, Santiago",
        daily_cap: 700,
        spacing_seconds: 30,
        window: { start_hour: 0, end_hour: 24, timezone: "UTC", days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] },
        ...spec.settings
      }
    })
    const recipients = spec.recipients.map((email, position): DigestedRecipient => ({
      position,
      personId: id("pe_"),
      email,
      country: "CL",
      fields: { first_name: `Persona${position}`, company: "Cliente" },
      source: "people_ids",
      lawfulBasis: "legitimate_interest",
      suppressedReason: null
    }))
    const version = spec.version ?? 1
    const content = contentDigest(definition)
    const recipientsHash = recipientsDigest(recipients)
    yield* sql`INSERT INTO sequences (id, workspace_id, name, status, version, mailbox_id, definition, content_digest, recipients_digest,
        created_at, updated_at, activated_at)
      VALUES (${sequenceId}, ${workspaceId}, ${sequenceId}, 'active', ${version}, ${mailboxId}, ${definitionText(definition)}, ${content},
        ${recipientsHash}, now(), now(), now())`
    for (const r of recipients) {
      yield* sql`INSERT INTO sequence_recipients (sequence_id, position, person_id, email, country, fields, source, lawful_basis, suppressed_reason)
        VALUES (${sequenceId}, ${r.position}, ${r.personId}, ${r.email}, ${r.country}, ${JSON.stringify(r.fields)}, ${r.source},
          ${r.lawfulBasis}, ${r.suppressedReason})`
    }
    const authorized = spec.authorize === undefined ? version : spec.authorize
    if (authorized !== null) {
      yield* authorize({ workspaceId, sequenceId, version: authorized, content, recipients: recipientsHash, count: recipients.length })
    }
    return {
      workspaceId,
      sequenceId,
      mailboxId,
      grantId,
      version,
      personIds: recipients.map((r) => r.personId)
    } satisfies SeededSequence
  })

/** The ledger row a human's activation writes. */
export const authorize = (row: {
  readonly workspaceId: string
  readonly sequenceId: string
  readonly version: number
  readonly content: string
  readonly recipients: string
  readonly count: number
}) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`INSERT INTO sequence_authorizations (id, workspace_id, sequence_id, sequence_version, content_digest, recipients_digest, recipients,
        preflight_id, user_id, user_email, session_id, decided_at)
      VALUES (${id("au_")}, ${row.workspaceId}, ${row.sequenceId}, ${row.version}, ${row.content}, ${row.recipients}, ${row.count},
        ${id("pf_")}, ${id("us_")}, 'ana@acme.cl', ${id("se_")}, now())`
  )

export const digestsOf = (sequenceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<
        { contentDigest: string; recipientsDigest: string }
      >`SELECT content_digest, recipients_digest FROM sequences WHERE id = ${sequenceId}`,
      (rows) => rows[0] ?? { contentDigest: "", recipientsDigest: "" }
    ))

export const enrollmentStates = (sequenceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ personId: string; state: string }>`SELECT person_id, state FROM sequence_enrollments WHERE sequence_id = ${sequenceId}`,
      (rows) => Object.fromEntries(rows.map((r) => [r.personId, r.state]))
    ))

export const sequenceStatus = (sequenceId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => Effect.map(sql<{ status: string }>`SELECT status FROM sequences WHERE id = ${sequenceId}`, (rows) => rows[0]?.status ?? "none")
  )

export const sendStates = (sequenceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<
        { sendKey: string; state: string }
      >`SELECT send_key, state FROM sequence_sends WHERE sequence_id = ${sequenceId} ORDER BY send_key`,
      (rows) => rows.map((r) => [r.sendKey, r.state] as const)
    ))

export const suppressionsOf = (workspaceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<
        { address: string; reason: string }
      >`SELECT address, reason FROM suppressions WHERE workspace_id = ${workspaceId} ORDER BY address`,
      (rows) => rows.map((r) => [r.address, r.reason] as const)
    ))
