import type { LoggingLevel } from "@modelcontextprotocol/server"
import { Duration, Effect, Fiber, Schedule } from "effect"
import type { ConnectionId } from "../../schema/Ids.ts"
import type { JobRow, SyncJobs } from "../../services/sync/SyncJobs.ts"

export interface LogLine {
  readonly level: LoggingLevel
  readonly message: string
}

const POLL = Schedule.spaced(Duration.millis(200))
const LOGIN = /login/i

const scopeOf = (job: JobRow) => `${job.connector} ${job.scopeKey.replaceAll("&", " ")}`
const failure = (job: JobRow) => `${job.errorReason ?? "error"}${job.errorMessage ? `: ${job.errorMessage}` : ""}`

/** What a long sync did between two looks at its connection's jobs, as log lines for the caller. */
export const changes = (before: ReadonlyMap<string, JobRow>, after: ReadonlyArray<JobRow>): ReadonlyArray<LogLine> =>
  after.flatMap((job): ReadonlyArray<LogLine> => {
    const was = before.get(job.id)
    const scope = scopeOf(job)
    const lines: Array<LogLine> = []
    if (was !== undefined && job.attempts > was.attempts && job.attempts > 1) {
      lines.push({
        level: "warning",
        message: `${scope}: retrying (attempt ${job.attempts} of ${job.maxAttempts})${was.errorReason ? ` after ${failure(was)}` : ""}`
      })
    }
    if (was !== undefined && job.state === "en_cola" && was.state === "sincronizando" && job.errorReason !== null) {
      lines.push({ level: "warning", message: `${scope}: will retry after ${failure(job)}` })
    }
    const step = job.progress.step
    const started = job.state === "sincronizando" && was?.state !== "sincronizando"
    if (started && (step === undefined || LOGIN.test(step))) {
      lines.push({ level: "info", message: `${scope}: logging in to ${job.connector}` })
    }
    if (step !== undefined && step !== was?.progress.step && LOGIN.test(step) && !started) {
      lines.push({
        level: was?.progress.step === undefined ? "info" : "notice",
        message: was?.progress.step === undefined
          ? `${scope}: logging in to ${job.connector}`
          : `${scope}: the session expired; logging in again`
      })
    }
    if (job.state !== was?.state) {
      if (job.state === "sincronizada") lines.push({ level: "info", message: `${scope}: synced` })
      if (job.state === "parcial") lines.push({ level: "warning", message: `${scope}: synced in part (${failure(job)})` })
      if (job.state === "error") lines.push({ level: "error", message: `${scope}: failed (${failure(job)})` })
    }
    return lines
  })

/**
 * Runs `call` while watching the connection's jobs, and sends what they do (login, retries, re-login,
 * the end) to `send`; a last look after the call so the end is told before the result.
 */
export const withSyncLog = <A, E, R>(
  jobs: SyncJobs,
  connectionId: ConnectionId,
  send: (line: LogLine) => Effect.Effect<void>,
  call: Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const seen = new Map((yield* jobs.list(connectionId, 20)).map((job) => [job.id, job] as const))
    const look = Effect.gen(function* () {
      const now = yield* jobs.list(connectionId, 20)
      yield* Effect.forEach(changes(seen, now), send, { discard: true })
      for (const job of now) seen.set(job.id, job)
    })
    const watcher = yield* Effect.forkScoped(Effect.repeat(look, POLL))
    const result = yield* call
    yield* Fiber.interrupt(watcher)
    yield* look
    return result
  }).pipe(Effect.scoped)
