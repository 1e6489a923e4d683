import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Finding, type PreflightResult } from "../../../schema/catalog/SequenceTools.ts"

const Row = Schema.Struct({
  id: Schema.String,
  sequenceId: Schema.String,
  version: Schema.Int,
  contentDigest: Schema.String,
  recipientsDigest: Schema.String,
  ok: Schema.Boolean,
  blockers: Schema.parseJson(Schema.Array(Finding)),
  warnings: Schema.parseJson(Schema.Array(Finding)),
  rulesetVersion: Schema.String,
  checkedAt: Schema.DateFromSelf
})
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))
const encodeFindings = Schema.encodeSync(Schema.parseJson(Schema.Array(Finding)))

const resultOf = (row: typeof Row.Type): PreflightResult => ({
  preflight_id: row.id,
  ref: `sequence_preflight:${row.id}`,
  sequence_id: row.sequenceId,
  version: row.version,
  content_digest: row.contentDigest,
  recipients_digest: row.recipientsDigest,
  ok: row.ok,
  blockers: row.blockers,
  warnings: row.warnings,
  checked_at: row.checkedAt.toISOString(),
  ruleset_version: row.rulesetVersion
})

/** Every preflight run of a sequence, bound to the version and digests it checked; activation reads the latest. */
export class Preflights extends Effect.Service<Preflights>()("brein/catalog/sequences/Preflights", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const save = Effect.fn("Preflights.save")(function* (workspaceId: string, result: PreflightResult) {
      yield* sql`INSERT INTO sequence_preflights (id, workspace_id, sequence_id, version, content_digest, recipients_digest, ok, blockers,
          warnings, ruleset_version, checked_at)
        VALUES (${result.preflight_id}, ${workspaceId}, ${result.sequence_id}, ${result.version}, ${result.content_digest},
          ${result.recipients_digest}, ${result.ok}, ${encodeFindings(result.blockers)}, ${encodeFindings(result.warnings)},
          ${result.ruleset_version}, ${new Date(result.checked_at)})`.pipe(Effect.orDie)
      return result
    })

    const latest = Effect.fn("Preflights.latest")(function* (sequenceId: string) {
      const rows = yield* sql`SELECT id, sequence_id, version, content_digest, recipients_digest, ok, blockers, warnings, ruleset_version,
          checked_at
        FROM sequence_preflights WHERE sequence_id = ${sequenceId} ORDER BY checked_at DESC, version DESC, id DESC LIMIT 1`.pipe(
        Effect.flatMap(decodeRows),
        Effect.orDie
      )
      return Option.map(Option.fromNullable(rows[0]), resultOf)
    })

    return { save, latest }
  })
}) {}
