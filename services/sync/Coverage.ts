import type { SqlClient, Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { scopeKeyOf } from "./SyncJobs.ts"

/** The columns `STATUS_COLUMNS` adds to a statement, as they come back. */
export const StatusColumns = Schema.Struct({
  syncedAt: Schema.NullOr(Schema.Date),
  completo: Schema.NullOr(Schema.Boolean),
  jobId: Schema.NullOr(Schema.String),
  jobState: Schema.NullOr(Schema.Literal("en_cola", "sincronizando", "sincronizada", "parcial", "error")),
  progress: Schema.NullOr(Schema.Struct({ done: Schema.Int, total: Schema.Int }))
})
type StatusRow = typeof StatusColumns.Type

/**
 * The joins that read a scope's coverage (`c`) and the sync under way in it (`j`), for a statement whose
 * FROM clause ends where they go; `STATUS_COLUMNS` selects from them.
 */
export const statusJoins = (
  sql: SqlClient.SqlClient,
  connectionId: string,
  scope: Readonly<Record<string, string>>
): Statement.Fragment => {
  const key = scopeKeyOf(scope)
  return sql`LEFT JOIN sync_coverage c ON c.connection_id = ${connectionId} AND c.scope_key = ${key}
    LEFT JOIN LATERAL (SELECT id, state, progress FROM sync_jobs
                       WHERE connection_id = ${connectionId} AND scope_key = ${key} AND state IN ('en_cola', 'sincronizando')
                       LIMIT 1) j ON true`
}

/**
 * The same for a connection as a whole: its latest coverage of any scope (`c`) and its oldest sync under
 * way (`j`), for what every sync refreshes whatever its scope (a bank's accounts and balances).
 */
export const latestStatusJoins = (sql: SqlClient.SqlClient, connectionId: string): Statement.Fragment =>
  sql`LEFT JOIN LATERAL (SELECT synced_at, completo FROM sync_coverage WHERE connection_id = ${connectionId}
                         ORDER BY synced_at DESC LIMIT 1) c ON true
    LEFT JOIN LATERAL (SELECT id, state, progress FROM sync_jobs
                       WHERE connection_id = ${connectionId} AND state IN ('en_cola', 'sincronizando')
                       ORDER BY created_at, seq LIMIT 1) j ON true`

/** A timestamptz column as the ISO text `Date#toISOString` writes (UTC, milliseconds). */
export const isoText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/**
 * The status columns of those joins, to go beside every row of a statement (a page or a summary joined to
 * them: one round trip, and one snapshot for the rows and the status they are read with), under the names
 * `StatusColumns` decodes: the sync's time comes as its ISO text, so that a value repeated down a page is
 * not parsed as a date once per row.
 */
export const STATUS_COLUMNS = `${isoText("c.synced_at")} AS "syncedAt", c.completo, j.id AS "jobId", j.state AS "jobState", j.progress`
const decodeStatusColumns = Schema.decodeUnknown(StatusColumns)

/** What `.consultar` answers about its scope (`statusOf`). */
export type ScopeStatus = ReturnType<typeof statusOf>

/** The status rows carry (`STATUS_COLUMNS`), read from the first: a statement of no rows of its own has that one row. */
export const statusOfRow = Effect.fn("Coverage.statusOfRow")(function* (first: unknown) {
  return statusOf(yield* Effect.orDie(decodeStatusColumns(first)))
})

/** What `.consultar` says about its scope: when it was synced, whether complete, and a sync under way. */
export const statusOf = (row: StatusRow | undefined) => ({
  sincronizacion: row?.syncedAt == null || row.completo === null
    ? null
    : { sincronizadoEn: row.syncedAt.toISOString(), completo: row.completo },
  sincronizacionEnCurso: row?.jobId == null || row.jobState === null || row.progress === null
    ? null
    : { trabajo: row.jobId, estado: row.jobState, progreso: row.progress }
})
