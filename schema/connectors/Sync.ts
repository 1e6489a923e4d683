import { Schema } from "effect"
import { ConnectionState } from "../connections/Connection.ts"
import { JobState, SyncJobView } from "../connections/SyncJob.ts"

export const Esperar = Schema.Int.pipe(
  Schema.between(0, 55, { message: (issue) => `must be between 0 and 55 seconds, got ${String(issue.actual)}` })
).annotations({
  description:
    "Seconds to wait for the sync to finish before answering (it goes on in the background); default 25, under MCP clients' 60 s timeout"
})

export const SyncOutput = Schema.Struct({
  estado: JobState.annotations({
    description:
      "From the jobs: sincronizando while any runs, en_cola while all wait; once all ended, error if any failed, parcial if any is incomplete, else sincronizada"
  }),
  trabajos: Schema.Array(SyncJobView),
  conexion: Schema.Struct({ id: Schema.String, estado: ConnectionState, motivo: Schema.NullOr(Schema.String) })
})
export type SyncOutput = typeof SyncOutput.Type

export const Sincronizacion = Schema.NullOr(
  Schema.Struct({
    sincronizadoEn: Schema.String.annotations({ description: "When the cached data was read from the source (ISO, UTC)" }),
    completo: Schema.Boolean.annotations({ description: "false when part of the scope could not be read" })
  })
).annotations({ description: "null when the scope was never synced: run conexion.sincronizar first" })

export const EnCurso = Schema.NullOr(
  Schema.Struct({ trabajo: Schema.String, estado: JobState, progreso: Schema.Struct({ done: Schema.Int, total: Schema.Int }) })
).annotations({ description: "A sync of this scope that is under way right now" })

export const Limit = Schema.Int.pipe(Schema.between(1, 500)).annotations({ description: "Rows per page (default 100)" })
export const Cursor = Schema.String.annotations({ description: "The cursor of the previous page" })
