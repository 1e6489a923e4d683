import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { SequenceDefinition } from "../../schema/catalog/Sequences.ts"

/** A send is keyed by what it is: one step of one authorized version to one recipient. */
export const sendKeyOf = (sequenceId: string, version: number, step: number, personId: string) =>
  `${sequenceId}:v${version}:s${step}:${personId}`

export const decodeDefinition = Schema.decodeUnknownOption(Schema.parseJson(SequenceDefinition))

export const Rows = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknown(Schema.Array(schema))
export const At = Schema.Struct({ at: Schema.NullOr(Schema.DateFromSelf) })

export interface EnrollmentKey {
  readonly sequenceId: string
  readonly version: number
  readonly personId: string
}

/** The sequence version that row `x` names is active, and a ledger row authorized exactly its content and recipients. */
export const authorizedVersion = (sql: SqlClient.SqlClient, x: string) =>
  sql.unsafe(`EXISTS (SELECT 1 FROM sequences s JOIN sequence_authorizations a ON a.sequence_id = s.id
    AND a.sequence_version = s.version AND a.content_digest = s.content_digest AND a.recipients_digest = s.recipients_digest
    WHERE s.id = ${x}.sequence_id AND s.version = ${x}.version AND s.status = 'active')`)

/** An enrollment in one of the `from` states finishes as `state`; its pending steps are cancelled. */
export const finishEnrollment = Effect.fn("SendRows.finishEnrollment")(function* (
  sql: SqlClient.SqlClient,
  key: EnrollmentKey,
  state: string,
  now: Date,
  from: ReadonlyArray<string>
) {
  yield* sql`UPDATE sequence_enrollments SET state = ${state}, finished_at = ${now}
    WHERE sequence_id = ${key.sequenceId} AND version = ${key.version} AND person_id = ${key.personId} AND state IN ${sql.in(from)}`
  yield* sql`UPDATE sequence_sends SET state = 'cancelled', lease_until = NULL
    WHERE sequence_id = ${key.sequenceId} AND version = ${key.version} AND person_id = ${key.personId} AND state = 'pending'`
})
