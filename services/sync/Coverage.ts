import { SqlClient } from "@effect/sql"
import { Array as Arr, Effect, Option, Schema } from "effect"
import { scopeKeyOf, SyncJobs } from "./SyncJobs.ts"

const Row = Schema.Struct({ syncedAt: Schema.DateFromSelf, completo: Schema.Boolean })
const decode = Schema.decodeUnknown(Schema.Array(Row))

/** What `.consultar` says about its scope: when it was synced, whether complete, and a sync under way. */
export const scopeStatus = (connectionId: string, scope: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* SyncJobs
    const key = scopeKeyOf(scope)
    const coverage = yield* sql`SELECT synced_at, completo FROM sync_coverage WHERE connection_id = ${connectionId} AND scope_key = ${key}`.pipe(
      Effect.flatMap(decode),
      Effect.orDie,
      Effect.map(Arr.head)
    )
    const running = yield* jobs.openFor(connectionId, key)
    return {
      sincronizacion: Option.match(coverage, {
        onNone: () => null,
        onSome: (c) => ({ sincronizadoEn: c.syncedAt.toISOString(), completo: c.completo })
      }),
      sincronizacionEnCurso: Option.match(running, {
        onNone: () => null,
        onSome: (j) => ({ trabajo: j.id, estado: j.state, progreso: { done: j.progress.done, total: j.progress.total } })
      })
    }
  })

export const encodeCursor = (id: number) => Buffer.from(JSON.stringify({ id }), "utf8").toString("base64url")

const CursorJson = Schema.parseJson(Schema.Struct({ id: Schema.Int }))
export const decodeCursor = (cursor: string | undefined) =>
  cursor === undefined
    ? Effect.succeed(0)
    : Schema.decodeUnknown(CursorJson)(Buffer.from(cursor, "base64url").toString("utf8")).pipe(Effect.map((c) => c.id))
