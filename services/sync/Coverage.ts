import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { scopeKeyOf } from "./SyncJobs.ts"

const Status = Schema.Struct({
  syncedAt: Schema.NullOr(Schema.DateFromSelf),
  completo: Schema.NullOr(Schema.Boolean),
  jobId: Schema.NullOr(Schema.String),
  jobState: Schema.NullOr(Schema.Literal("en_cola", "sincronizando", "sincronizada", "parcial", "error")),
  progress: Schema.NullOr(Schema.Struct({ done: Schema.Int, total: Schema.Int }))
})
const decode = Schema.decodeUnknown(Schema.Array(Status))

/** What `.consultar` says about its scope: when it was synced, whether complete, and a sync under way. */
export const scopeStatus = (connectionId: string, scope: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const key = scopeKeyOf(scope)
    const [row] = yield* sql`
      SELECT c.synced_at, c.completo, j.id AS job_id, j.state AS job_state, j.progress
      FROM (SELECT 1) one
      LEFT JOIN sync_coverage c ON c.connection_id = ${connectionId} AND c.scope_key = ${key}
      LEFT JOIN LATERAL (SELECT id, state, progress FROM sync_jobs
                         WHERE connection_id = ${connectionId} AND scope_key = ${key} AND state IN ('en_cola', 'sincronizando')
                         LIMIT 1) j ON true`.pipe(Effect.flatMap(decode), Effect.orDie)
    return {
      sincronizacion: row?.syncedAt == null || row.completo === null
        ? null
        : { sincronizadoEn: row.syncedAt.toISOString(), completo: row.completo },
      sincronizacionEnCurso: row?.jobId == null || row.jobState === null || row.progress === null
        ? null
        : { trabajo: row.jobId, estado: row.jobState, progreso: row.progress }
    }
  })

export const encodeCursor = (id: number) => Buffer.from(JSON.stringify({ id }), "utf8").toString("base64url")

const CursorJson = Schema.parseJson(Schema.Struct({ id: Schema.Int }))
export const decodeCursor = (cursor: string | undefined) =>
  cursor === undefined
    ? Effect.succeed(0)
    : Schema.decodeUnknown(CursorJson)(Buffer.from(cursor, "base64url").toString("utf8")).pipe(Effect.map((c) => c.id))
