import { Duration, Effect, Option } from "effect"
import { type JobState, TERMINAL } from "../../schema/connections/SyncJob.ts"
import type { SyncOutput } from "../../schema/connectors/Sync.ts"
import { RecordNotFound } from "../../schema/Errors.ts"
import type { ConnectionId } from "../../schema/Ids.ts"
import { Connections, hintFor } from "../connections/Connections.ts"
import type { AfterCommitContext, CallInfo, ReadContext } from "../tools/Tool.ts"
import { ConnectorSyncs } from "./ConnectorSync.ts"
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

type Connected = CallInfo & { readonly connectionId: ConnectionId }

/** The call found the connection in its workspace, so one missing later was deleted (ids are never reused), its jobs with it. */
const deleted = (connector: string, connectionId: string) =>
  RecordNotFound.of("connection", [connectionId], {
    hint:
      `The connection was deleted while this call ran, with its cached data and its sync jobs: nothing syncs for it. To sync this ${connector} login again, create a connection (POST /api/v1/connections) and call ${connector}.conexion.sincronizar with its id.`,
    next_actions: [
      { method: "POST", path: "/api/v1/connections", reason: `create a ${connector} connection with the user's credentials` },
      { method: "GET", path: "/api/v1/connections", reason: "list this workspace's connections and their ids" }
    ]
  }, "it was deleted while this call ran")

const answer = Effect.fn("Sincronizar.answer")(function* (jobs: ReadonlyArray<JobRow>, ctx: Connected) {
  const connection = yield* (yield* Connections).get(ctx.principal, ctx.connectionId)
  return {
    output: {
      estado: overallState(jobs),
      trabajos: jobs.map(toView),
      conexion: { id: connection.id, estado: connection.state, motivo: connection.reason }
    } satisfies SyncOutput,
    reason: connection.reason
  }
})

/**
 * What every `<c>.conexion.sincronizar` does in its transaction: record a durable job per scope (they
 * commit with the call's audit row) and answer with the jobs as they stand then.
 */
export const sincronizar = Effect.fn("Sincronizar.sincronizar")(
  function* (connector: string, scopes: ReadonlyArray<Readonly<Record<string, string>>>, ctx: ReadContext) {
    const jobs = yield* SyncJobs
    const settings = yield* SyncSettings
    const steps = (yield* ConnectorSyncs).get(connector)?.steps ?? 0
    const target = { connectionId: ctx.connectionId, workspaceId: ctx.principal.workspaceId, connector }
    const ids = yield* jobs.enqueue(target, scopes, settings.maxAttempts, steps)
    return (yield* answer(yield* jobs.byIds(ids), ctx)).output
  },
  // Deleted after the call was authorized (here or in another process, too recently for this one's cache to know).
  (effect, connector) =>
    Effect.catchTags(effect, {
      ConnectionGone: (gone) => Effect.fail(deleted(connector, gone.connectionId)),
      ConnectionNotFound: (missing) => Effect.fail(deleted(connector, missing.connectionId))
    })
)

/**
 * After the commit, outside any transaction: wake a worker, wait up to `esperar` seconds for the jobs
 * reporting progress (holding no database connection while waiting), and answer with them as they stand.
 */
export const esperar = Effect.fn("Sincronizar.esperar")(
  function* (connector: string, seconds: number, committed: SyncOutput, ctx: AfterCommitContext) {
    const jobs = yield* SyncJobs
    yield* (yield* SyncWorker).wake
    const ids = committed.trabajos.map((t) => t.id)
    const report = (current: ReadonlyArray<JobRow>) => {
      const total = current.reduce((n, j) => n + Math.max(j.progress.total, 1), 0)
      const progress = current.reduce((n, j) => n + (TERMINAL.includes(j.state) ? Math.max(j.progress.total, 1) : j.progress.done), 0)
      return ctx.progress({
        progress,
        total,
        message: current.map((j) => `${j.scopeKey}: ${j.state}${j.progress.step ? ` (${j.progress.step})` : ""}`).join("; ")
      })
    }
    // Not waiting answers with the jobs as committed, whatever a worker has done with them since.
    const { output, reason } = seconds > 0
      ? yield* answer(Option.getOrNull(yield* jobs.awaitJobs(ids, Duration.seconds(seconds), report)) ?? (yield* jobs.byIds(ids)), ctx)
      : { output: committed, reason: committed.conexion.motivo }
    const todo = hintFor(ctx.connectionId, reason)
    if (todo !== null && output.estado === "error") yield* ctx.annotate({ hint: todo })
    else if (!TERMINAL.includes(output.estado)) {
      yield* ctx.annotate({
        hint:
          `The sync goes on in the background. Follow it with GET /api/v1/connections/${ctx.connectionId}/jobs or call this tool again (it reuses the running job).`
      })
    }
    if (reason === "credenciales_invalidas") {
      yield* ctx.annotate({
        hint:
          `The ${connector} login was rejected, so no sync will run until the credentials change: send the right ones with PATCH /api/v1/connections/${ctx.connectionId} ({ "credentials": { "rut": …, "clave": … } }), then call this tool again.`
      })
    }
    return output
  },
  // Deleted while the call waited (here or in another process): its jobs went with it.
  (effect, connector) => Effect.catchTag(effect, "ConnectionNotFound", (missing) => Effect.fail(deleted(connector, missing.connectionId)))
)
