import { Duration, Effect, Option } from "effect"
import { Forbidden } from "../../schema/Errors.ts"
import { type JobState, TERMINAL } from "../../schema/connections/SyncJob.ts"
import type { SyncOutput } from "../../schema/connectors/Sync.ts"
import { Connections, hintFor } from "../connections/Connections.ts"
import { ConnectorSyncs } from "./ConnectorSync.ts"
import type { ReadContext } from "../tools/Tool.ts"
import { type JobRow, SyncJobs, toView } from "./SyncJobs.ts"
import { SyncSettings } from "./SyncSettings.ts"
import { SyncWorker } from "./SyncWorker.ts"

const has = (jobs: ReadonlyArray<Pick<JobRow, "state">>, state: JobState) => jobs.some((j) => j.state === state)

/**
 * The sync as its jobs stand: running while any job runs, queued while the open ones all wait; once
 * every job ended, one error makes it an error and one incomplete scope makes it parcial.
 */
export const overallState = (jobs: ReadonlyArray<Pick<JobRow, "state">>): JobState =>
  has(jobs, "sincronizando")
    ? "sincronizando"
    : has(jobs, "en_cola")
    ? (jobs.some((j) => TERMINAL.includes(j.state)) ? "sincronizando" : "en_cola")
    : has(jobs, "error")
    ? "error"
    : has(jobs, "parcial")
    ? "parcial"
    : "sincronizada"

/**
 * What every `<c>.conexion.sincronizar` does: record a durable job per scope, wake a worker, wait up
 * to `esperar` seconds reporting progress, and answer with the jobs as they stand.
 */
export const sincronizar = (connector: string, scopes: ReadonlyArray<Readonly<Record<string, string>>>, esperar: number, ctx: ReadContext) =>
  Effect.gen(function* () {
    const jobs = yield* SyncJobs
    const connections = yield* Connections
    const settings = yield* SyncSettings
    const worker = yield* SyncWorker
    const steps = (yield* ConnectorSyncs).get(connector)?.steps ?? 0
    const connectionId = ctx.persist.connectionId
    if (connectionId === null) return yield* Effect.dieMessage(`${connector}.conexion.sincronizar ran without a connection`)
    const target = { connectionId, workspaceId: ctx.principal.workspaceId, connector }
    const report = (current: ReadonlyArray<JobRow>) => {
      const total = current.reduce((n, j) => n + Math.max(j.progress.total, 1), 0)
      const progress = current.reduce((n, j) => n + (TERMINAL.includes(j.state) ? Math.max(j.progress.total, 1) : j.progress.done), 0)
      return ctx.progress({ progress, total, message: current.map((j) => `${j.scopeKey}: ${j.state}${j.progress.step ? ` (${j.progress.step})` : ""}`).join("; ") })
    }
    // A caller that waits holds its transaction's connection and takes a second one to make the job
    // visible: only a bounded number may do so; the others record the job in their own transaction.
    const waitFor = Effect.gen(function* () {
      const ids = yield* jobs.enqueue(target, scopes, settings.maxAttempts, steps, "now")
      yield* worker.wake
      return yield* jobs.awaitJobs(ids, Duration.seconds(esperar), report)
    })
    const waited = esperar > 0 ? yield* settings.waiting.withPermitsIfAvailable(1)(waitFor) : Option.none()
    if (Option.isNone(waited) && esperar > 0) {
      ctx.annotate({ warnings: ["Too many sync calls are waiting right now: this one answers without waiting."] })
    }
    const done = Option.isSome(waited)
      ? waited.value
      : yield* Effect.flatMap(jobs.enqueue(target, scopes, settings.maxAttempts, steps, "with-caller"), jobs.byIds)
    const connection = yield* connections.get(ctx.principal, connectionId)
    const estado = overallState(done)
    const todo = hintFor(connectionId, connection.reason)
    if (todo !== null && estado === "error") ctx.annotate({ hint: todo })
    else if (!TERMINAL.includes(estado)) {
      ctx.annotate({
        hint: `The sync goes on in the background. Follow it with GET /api/v1/connections/${connectionId}/jobs or call this tool again (it reuses the running job).`
      })
    }
    if (connection.reason === "credenciales_invalidas") {
      ctx.annotate({
        hint: `The ${connector} login was rejected, so no sync will run until the credentials change: send the right ones with PATCH /api/v1/connections/${connectionId} ({ "credentials": { "rut": …, "clave": … } }), then call this tool again.`
      })
    }
    return {
      estado,
      trabajos: done.map(toView),
      conexion: { id: connection.id, estado: connection.state, motivo: connection.reason }
    } satisfies SyncOutput
  }).pipe(
    // Deleted meanwhile (here or in another process): refused like any connection not in the workspace.
    Effect.catchTags({
      ConnectionGone: (gone) => Effect.fail(Forbidden.connectionNotInWorkspace(gone.connectionId)),
      ConnectionNotFound: (missing) => Effect.fail(Forbidden.connectionNotInWorkspace(missing.connectionId))
    })
  )
