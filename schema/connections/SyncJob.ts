import { Schema } from "effect"

export const JobState = Schema.Literal("en_cola", "sincronizando", "sincronizada", "parcial", "error")
export type JobState = typeof JobState.Type
export const TERMINAL: ReadonlyArray<JobState> = ["sincronizada", "parcial", "error"]

export const Progress = Schema.Struct({
  done: Schema.Int,
  total: Schema.Int,
  step: Schema.optional(Schema.String)
})
export type Progress = typeof Progress.Type

export const SyncJobView = Schema.Struct({
  id: Schema.String,
  connectionId: Schema.String,
  scope: Schema.Record({ key: Schema.String, value: Schema.String }),
  state: JobState,
  attempts: Schema.Int,
  progress: Progress,
  counts: Schema.Record({ key: Schema.String, value: Schema.Number }).annotations({
    description: "Rows per type: e.g. tipoDte counts, nuevos, cambiados, sinCambios"
  }),
  error: Schema.NullOr(Schema.Struct({ reason: Schema.String, message: Schema.String })),
  createdAt: Schema.String,
  startedAt: Schema.NullOr(Schema.String),
  finishedAt: Schema.NullOr(Schema.String)
}).annotations({ identifier: "SyncJob" })
export type SyncJobView = typeof SyncJobView.Type
