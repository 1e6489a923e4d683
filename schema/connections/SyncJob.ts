import { Schema } from "effect"

export const JobState = Schema.Literal("en_cola", "sincronizando", "sincronizada", "parcial", "error")
export type JobState = typeof JobState.Type
export const TERMINAL: ReadonlyArray<JobState> = ["sincronizada", "parcial", "error"]

export const Progress = Schema.Struct({
  done: Schema.Int.annotations({ description: "Steps finished" }),
  total: Schema.Int.annotations({ description: "Steps of the job, known when it is queued (the login is the first)" }),
  step: Schema.optional(Schema.String).annotations({ description: "The step under way: login, resumen, tipoDte 33 (1/4), guardando, …" })
})
export type Progress = typeof Progress.Type

export const MissingPart = Schema.Struct({
  recurso: Schema.String.annotations({ description: "What could not be read: tipoDte:61, or a bank account id" }),
  tipoDte: Schema.optional(Schema.Int).annotations({ description: "SII: the document type that could not be read" }),
  cuenta: Schema.optional(Schema.String).annotations({ description: "banco: the account that could not be read" }),
  reason: Schema.String.annotations({ description: "What the upstream answered" })
}).annotations({ identifier: "MissingPart" })
export type MissingPart = typeof MissingPart.Type

export const JobError = Schema.Struct({
  reason: Schema.String,
  message: Schema.String,
  parts: Schema.optional(Schema.Array(MissingPart)).annotations({
    description: "For a parcial job: each part that could not be read, and why"
  })
}).annotations({ identifier: "SyncJobError" })
export type JobError = typeof JobError.Type

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
  error: Schema.NullOr(JobError),
  createdAt: Schema.String,
  startedAt: Schema.NullOr(Schema.String),
  finishedAt: Schema.NullOr(Schema.String)
}).annotations({ identifier: "SyncJob" })
export type SyncJobView = typeof SyncJobView.Type
