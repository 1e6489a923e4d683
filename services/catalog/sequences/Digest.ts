import { Schema } from "effect"
import { SequenceDefinition, type SuppressionReason } from "../../../schema/catalog/Sequences.ts"
import { canonicalJson, digestOf } from "../../audit/Chain.ts"

/** A recipient as the recipients digest covers it (a row of sequence_recipients, in position order). */
export interface DigestedRecipient {
  readonly position: number
  readonly personId: string
  readonly email: string | null
  readonly country: "CL" | "MX"
  readonly fields: Readonly<Record<string, string>>
  readonly source: string
  readonly lawfulBasis: string | null
  readonly suppressedReason: SuppressionReason | null
}

const encodeDefinition = Schema.encodeSync(SequenceDefinition)

/** The stored text of a definition (sequences.definition): canonical JSON of its encoded form, defaults applied. */
export const definitionText = (definition: SequenceDefinition): string => canonicalJson(encodeDefinition(definition))

/** content_digest: sha256 (hex) of the canonical JSON (sorted keys) of the encoded definition. */
export const contentDigest = (definition: SequenceDefinition): string => digestOf(encodeDefinition(definition))

/**
 * recipients_digest: sha256 (hex) of the canonical JSON of the recipients ordered by position, each
 * `{position, person_id, email, country, fields, source, lawful_basis, suppressed_reason}` (suppressed
 * ones included). No recipients digests `[]`.
 */
export const recipientsDigest = (recipients: ReadonlyArray<DigestedRecipient>): string =>
  digestOf(
    [...recipients].sort((a, b) => a.position - b.position).map((r) => ({
      position: r.position,
      person_id: r.personId,
      email: r.email,
      country: r.country,
      fields: r.fields,
      source: r.source,
      lawful_basis: r.lawfulBasis,
      suppressed_reason: r.suppressedReason
    }))
  )
