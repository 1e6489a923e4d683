import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { Finding } from "../../../schema/catalog/SequenceTools.ts"

const suffix = () => randomBytes(5).toString("hex")

export interface SequenceFixture {
  readonly id: string
  readonly version: number
  readonly contentDigest: string
  readonly recipientsDigest: string
}

/**
 * A draft sequence of the workspace written as the sequences service writes it (mailbox, sequence,
 * recipients): two that can be sent to, one suppressed and one without an email.
 */
export const insertSequence = (workspaceId: string, options: { readonly version?: number } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = `sq_${suffix()}`
    const mailbox = `mbx_${suffix()}`
    const at = new Date("2026-11-16T15:00:00Z")
    const fixture: SequenceFixture = {
      id,
      version: options.version ?? 3,
      contentDigest: `c_${suffix()}`,
      recipientsDigest: `r_${suffix()}`
    }
    yield* sql`INSERT INTO mailboxes (id, workspace_id, email, display_name, grant_id, spf, dkim, dmarc, daily_cap,
                 min_spacing_seconds, created_at)
               VALUES (${mailbox}, ${workspaceId}, ${`ventas-${suffix()}@acme.cl`}, 'Ventas Acme', ${`grant_${suffix()}`},
                 true, true, true, 300, 60, ${at})`
    yield* sql`INSERT INTO sequences (id, workspace_id, name, status, version, mailbox_id, definition, content_digest,
                 recipients_digest, created_at, updated_at)
               VALUES (${id}, ${workspaceId}, ${`Campaña ${suffix()}`}, 'draft', ${fixture.version}, ${mailbox}, '{"steps":[]}',
                 ${fixture.contentDigest}, ${fixture.recipientsDigest}, ${at}, ${at})`
    const recipients = [
      { person: "per_1", email: "ana@cliente.cl", suppressed: null },
      { person: "per_2", email: "beto@cliente.mx", suppressed: null },
      { person: "per_3", email: "carla@cliente.cl", suppressed: "unsubscribed" },
      { person: "per_4", email: null, suppressed: null }
    ]
    yield* Effect.forEach(recipients, (r, position) =>
      sql`INSERT INTO sequence_recipients (sequence_id, position, person_id, email, country, fields, source, lawful_basis,
            suppressed_reason)
          VALUES (${id}, ${position}, ${r.person}, ${r.email}, 'CL', '{}', 'list', 'legitimate_interest', ${r.suppressed})`)
    return fixture
  }).pipe(Effect.orDie)

/** A preflight of the sequence as it is (or as `overrides` says it was), checked at `checkedAt`. */
export const insertPreflight = (
  workspaceId: string,
  sequence: SequenceFixture,
  options: {
    readonly ok?: boolean
    readonly blockers?: ReadonlyArray<Finding>
    readonly version?: number
    readonly contentDigest?: string
    readonly recipientsDigest?: string
    readonly checkedAt?: Date
  } = {}
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = `pf_${suffix()}`
    const blockers = options.blockers ?? []
    yield* sql`INSERT INTO sequence_preflights (id, workspace_id, sequence_id, version, content_digest, recipients_digest, ok,
                 blockers, warnings, ruleset_version, checked_at)
               VALUES (${id}, ${workspaceId}, ${sequence.id}, ${options.version ?? sequence.version},
                 ${options.contentDigest ?? sequence.contentDigest}, ${options.recipientsDigest ?? sequence.recipientsDigest},
                 ${options.ok ?? blockers.length === 0}, ${JSON.stringify(blockers)}, '[]', '2026-11',
                 ${options.checkedAt ?? new Date("2026-11-16T15:05:00Z")})`
    return id
  }).pipe(Effect.orDie)

export const sequenceState = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ readonly status: string; readonly activatedAt: Date | null }>`SELECT status, activated_at FROM sequences WHERE id = ${id}`
  ).pipe(
    Effect.map((rows) => rows[0]),
    Effect.orDie
  )

export const ledgerRows = (sequenceId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ readonly id: string; readonly userEmail: string }>`SELECT id, user_email FROM sequence_authorizations
      WHERE sequence_id = ${sequenceId}`
  ).pipe(Effect.orDie)
