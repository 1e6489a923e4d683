import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import { Effect, Schema } from "effect"
import { scopeKeyOf } from "./SyncJobs.ts"

/** The columns `statusColumns` adds to a statement, as they come back. */
export const StatusFields = {
  syncedAt: Schema.NullOr(Schema.DateFromSelf),
  completo: Schema.NullOr(Schema.Boolean),
  jobId: Schema.NullOr(Schema.String),
  jobState: Schema.NullOr(Schema.Literal("en_cola", "sincronizando", "sincronizada", "parcial", "error")),
  progress: Schema.NullOr(Schema.Struct({ done: Schema.Int, total: Schema.Int }))
}
const Status = Schema.Struct(StatusFields)
export type StatusRow = typeof Status.Type
const decode = Schema.decodeUnknown(Schema.Array(Status))

/**
 * The joins that read a scope's coverage and the sync under way in it, for a statement whose
 * FROM clause ends where they go: they add `synced_at, completo, job_id, job_state, progress`.
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

const STATUS_COLUMNS = "c.synced_at, c.completo, j.id AS job_id, j.state AS job_state, j.progress"

/**
 * The same columns beside every row of a page (the page joined to `statusJoins`, one round trip for both),
 * under the names `StatusFields` decode: the sync's time comes as its ISO text, so that a value repeated
 * down the page is not parsed as a date once per row.
 */
export const PAGE_STATUS_COLUMNS = `to_char(c.synced_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "syncedAt", ` +
  `c.completo, j.id AS "jobId", j.state AS "jobState", j.progress`
const decodePageStatus = Schema.decodeUnknown(Schema.Struct({ ...StatusFields, syncedAt: Schema.NullOr(Schema.Date) }))

/** What `.consultar` answers about its scope (`statusOf`). */
export type ScopeStatus = ReturnType<typeof statusOf>

/** The status a page carries on its rows (`PAGE_STATUS_COLUMNS`), read from its first row. */
export const pageStatus = Effect.fn("Coverage.pageStatus")(function* (first: unknown) {
  return statusOf(yield* Effect.orDie(decodePageStatus(first)))
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

export const scopeStatus = Effect.fn("Coverage.scopeStatus")(function* (connectionId: string, scope: Readonly<Record<string, string>>) {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql`SELECT ${sql.literal(STATUS_COLUMNS)} FROM (SELECT 1) one ${statusJoins(sql, connectionId, scope)}`.pipe(
    Effect.flatMap(decode),
    Effect.orDie
  )
  return statusOf(row)
})

export const encodeCursor = (id: number) => Buffer.from(JSON.stringify({ id }), "utf8").toString("base64url")

const decodeCursorJson = Schema.decodeUnknown(Schema.parseJson(Schema.Struct({ id: Schema.Int })))
export const decodeCursor = Effect.fn("Coverage.decodeCursor")(function* (cursor: string | undefined) {
  if (cursor === undefined) return 0
  const { id } = yield* decodeCursorJson(Buffer.from(cursor, "base64url").toString("utf8"))
  return id
})
