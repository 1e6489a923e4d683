import { SqlClient } from "@effect/sql"
import { Array as Arr, Data, Duration, Effect, Option, Schema } from "effect"
import { type JobError, type JobState, MissingPart, type Progress, type SyncJobView } from "../../schema/connections/SyncJob.ts"
import { ConnectionId, WorkspaceId } from "../../schema/Ids.ts"
import { sqlState } from "../Database.ts"
import { newId } from "../Ids.ts"
import { Channel } from "../Signals.ts"
import { makeJobWatch } from "./JobWatch.ts"

/** The job's connection no longer exists. */
export class ConnectionGone extends Data.TaggedError("ConnectionGone")<{ readonly connectionId: string }> {}

const JobRow = Schema.Struct({
  id: Schema.String,
  connectionId: ConnectionId,
  workspaceId: WorkspaceId,
  connector: Schema.String,
  scopeKey: Schema.String,
  scope: Schema.Record({ key: Schema.String, value: Schema.String }),
  state: Schema.Literal("en_cola", "sincronizando", "sincronizada", "parcial", "error"),
  attempts: Schema.Int,
  maxAttempts: Schema.Int,
  progress: Schema.Struct({ done: Schema.Int, total: Schema.Int, step: Schema.optional(Schema.String) }),
  counts: Schema.Record({ key: Schema.String, value: Schema.Number }),
  errorReason: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
  errorParts: Schema.NullOr(Schema.Array(MissingPart)),
  createdAt: Schema.DateFromSelf,
  startedAt: Schema.NullOr(Schema.DateFromSelf),
  finishedAt: Schema.NullOr(Schema.DateFromSelf)
})
export type JobRow = typeof JobRow.Type
const decodeJobs = Schema.decodeUnknown(Schema.Array(JobRow))
const ClaimedRow = Schema.Struct({ ...JobRow.fields, takenOver: Schema.Boolean, credentialsGeneration: Schema.Int })
/**
 * A job this worker now owns; `takenOver` when another worker held it and its lease ran out;
 * `credentialsGeneration`: which of its connection's credentials were stored when it was claimed.
 */
export type ClaimedJob = typeof ClaimedRow.Type
const decodeClaimed = Schema.decodeUnknown(Schema.Array(ClaimedRow))
const BATCH = 24
const decodeLatest = Schema.decodeUnknown(Schema.Array(Schema.Struct({ key: Schema.String, id: Schema.String })))

export const scopeKeyOf = (scope: Readonly<Record<string, string>>) => Object.keys(scope).sort().map((k) => `${k}=${scope[k]}`).join("&")

export const toView = (row: JobRow): SyncJobView => ({
  id: row.id,
  connectionId: row.connectionId,
  scope: row.scope,
  state: row.state,
  attempts: row.attempts,
  progress: row.progress,
  counts: row.counts,
  error: row.errorReason === null
    ? null
    : { reason: row.errorReason, message: row.errorMessage ?? "", ...(row.errorParts === null ? {} : { parts: row.errorParts }) },
  createdAt: row.createdAt.toISOString(),
  startedAt: row.startedAt?.toISOString() ?? null,
  finishedAt: row.finishedAt?.toISOString() ?? null
})

export interface Claim {
  readonly id: string
  readonly attempts: number
}

export interface JobTarget {
  readonly connectionId: string
  readonly workspaceId: string
  readonly connector: string
}

/** Durable sync jobs in PostgreSQL: one open job per (connection, scope); any process may run it. */
export class SyncJobs extends Effect.Service<SyncJobs>()("brein/sync/SyncJobs", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const COLUMNS = sql`id, connection_id, workspace_id, connector, scope_key, scope, state, attempts, max_attempts, progress,
                        counts, error_reason, error_message, error_parts, created_at, started_at, finished_at`
    const query = (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) => statement.pipe(Effect.flatMap(decodeJobs), Effect.orDie)

    /**
     * Records a job per scope (or finds the one already open), in the caller's transaction: the jobs
     * commit with the call's audit row, and a worker hears of them (NOTIFY) when that commits.
     */
    const enqueue = Effect.fn("SyncJobs.enqueue")(function* (
      target: JobTarget,
      scopes: ReadonlyArray<Readonly<Record<string, string>>>,
      maxAttempts: number,
      steps: number
    ) {
      const keys = scopes.map(scopeKeyOf)
      const fresh = yield* Effect.forEach(scopes, () => newId("job"))
      // One statement for every scope: a worker sees all of them at once and runs them under one login, in
      // the order of `seq`, which the rows draw in the order of the scopes (ORDER BY u.n).
      yield* sql.unsafe(
        `INSERT INTO sync_jobs (id, connection_id, workspace_id, connector, scope_key, scope, state, max_attempts, progress, created_at)
         SELECT u.id, $1, $2, $3, u.scope_key, u.scope::jsonb, 'en_cola', $4, $5::jsonb, clock_timestamp()
         FROM unnest($6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS u(id, scope_key, scope, n) ORDER BY u.n
         ON CONFLICT (connection_id, scope_key) WHERE state IN ('en_cola', 'sincronizando') DO NOTHING`,
        [
          target.connectionId,
          target.workspaceId,
          target.connector,
          maxAttempts,
          JSON.stringify({ done: 0, total: steps }),
          fresh,
          keys,
          scopes.map((s) => JSON.stringify(s))
        ]
      ).pipe(
        // The connection was deleted (by another process, too recently for its cache to have heard).
        Effect.catchIf((error) => sqlState(error) === "23503", () => Effect.fail(new ConnectionGone({ connectionId: target.connectionId })))
      )
      const latest = yield* sql`SELECT DISTINCT ON (scope_key) scope_key AS key, id FROM sync_jobs
                                WHERE connection_id = ${target.connectionId} AND scope_key IN ${sql.in(keys)}
                                ORDER BY scope_key, (state IN ('en_cola', 'sincronizando')) DESC, created_at DESC, seq DESC`.pipe(
        Effect.flatMap(decodeLatest)
      )
      const ids = keys.flatMap((key) => latest.filter((row) => row.key === key).map((row) => row.id))
      yield* sql`SELECT pg_notify(${Channel.syncJobs}, ${target.connectionId})`
      return ids
    }, Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    /** The jobs in the order of `ids` (the order of the scopes asked for). */
    const byIds = Effect.fn("SyncJobs.byIds")(function* (ids: ReadonlyArray<string>) {
      if (ids.length === 0) return []
      const rows = yield* query(sql`SELECT ${COLUMNS} FROM sync_jobs WHERE id IN ${sql.in(ids)}`)
      return [...rows].sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id))
    })

    const list = Effect.fn("SyncJobs.list")(function* (connectionId: string, limit: number) {
      return yield* query(
        sql`SELECT ${COLUMNS} FROM sync_jobs WHERE connection_id = ${connectionId} ORDER BY created_at DESC, seq DESC LIMIT ${limit}`
      )
    })

    /**
     * Takes the next due job whose lease (if any) has run out (a crashed worker's job comes back here)
     * together with every other due job of its connection, so they run under one upstream login; the
     * connection says `sincronizando` in the same statement, unless its credentials were refused. Every
     * job of the batch carries the generation of the credentials the connection held then. The batch comes
     * in the order its jobs were queued (`seq` orders the jobs of one instant), the order they run in.
     */
    const claim = Effect.fn("SyncJobs.claim")(function* (lease: Duration.Duration) {
      return yield* sql`WITH first AS (
            -- The earliest due job whose connection no transaction holds (its delete, a job of it settling), both rows
            -- locked without waiting: a delete takes the connection and then its jobs, so waiting for either here, the
            -- other held, could deadlock with it. Locked, the connection is read as last committed (its generation).
            SELECT j.connection_id, c.credentials_generation FROM sync_jobs j JOIN connections c ON c.id = j.connection_id
            WHERE j.state IN ('en_cola', 'sincronizando') AND j.run_after <= now()
            ORDER BY j.run_after FOR UPDATE OF j, c SKIP LOCKED LIMIT 1
          ), batch AS (
            SELECT j.id, j.state = 'sincronizando' AS taken_over FROM sync_jobs j JOIN first f ON j.connection_id = f.connection_id
            WHERE j.state IN ('en_cola', 'sincronizando') AND j.run_after <= now()
            ORDER BY j.created_at, j.seq LIMIT ${BATCH} FOR UPDATE OF j SKIP LOCKED
          ), marked AS (
            UPDATE connections c SET state = 'sincronizando', state_reason = NULL, updated_at = now()
            FROM first f WHERE c.id = f.connection_id AND NOT (c.state = 'error' AND c.state_reason = 'credenciales_invalidas')
          ), claimed AS (
            UPDATE sync_jobs j SET state = 'sincronizando', attempts = j.attempts + 1,
              run_after = now() + ${`${Duration.toMillis(lease)} milliseconds`}::interval,
              started_at = coalesce(j.started_at, now()),
              progress = j.progress || '{"done": 0, "step": "login"}'::jsonb
            FROM batch b, first g WHERE j.id = b.id
            RETURNING j.*, b.taken_over, g.credentials_generation
          )
          SELECT ${COLUMNS}, taken_over, credentials_generation FROM claimed ORDER BY created_at, seq`
        .pipe(
          Effect.flatMap(decodeClaimed),
          Effect.orDie,
          Effect.map((rows) => Arr.isNonEmptyReadonlyArray(rows) ? Option.some(rows) : Option.none())
        )
    })

    // A claim is (id, attempts): a worker whose lease ran out and whose job was claimed again changes nothing.
    const owned = (claim: Claim) => sql`id = ${claim.id} AND attempts = ${claim.attempts}`

    /**
     * Extends the lease of the claimed jobs still running, and says whether none of them exists any more (deleted with
     * their connection): one statement per heartbeat, however the jobs stand (running, finished, or gone).
     */
    const renew = Effect.fn("SyncJobs.renew")(function* (claims: ReadonlyArray<Claim>, lease: Duration.Duration) {
      const ids = claims.map((c) => c.id)
      const [row] = yield* sql<{ readonly renewed: number; readonly gone: boolean }>`WITH renewed AS (
          UPDATE sync_jobs SET run_after = now() + ${`${Duration.toMillis(lease)} milliseconds`}::interval
          WHERE (id, attempts) IN (SELECT * FROM unnest(${ids}::text[], ${claims.map((c) => c.attempts)}::int[]))
            AND state = 'sincronizando'
          RETURNING id)
        SELECT (SELECT count(*)::int FROM renewed) AS renewed,
          NOT EXISTS (SELECT 1 FROM sync_jobs WHERE id = ANY(${ids}::text[])) AS gone`.pipe(Effect.orDie)
      return { renewed: row?.renewed ?? 0, gone: row?.gone ?? false }
    })

    const report = Effect.fn("SyncJobs.report")(function* (claim: Claim, progress: Progress) {
      return yield* sql`UPDATE sync_jobs SET progress = ${JSON.stringify(progress)}::jsonb WHERE ${owned(claim)}`.pipe(
        Effect.orDie,
        Effect.asVoid
      )
    })

    /** Ends a claimed job; false when the claim was lost (another worker owns the job now). */
    const finish = Effect.fn("SyncJobs.finish")(
      function* (claim: Claim, state: JobState, counts: Readonly<Record<string, number>>, error: Option.Option<JobError>) {
        return yield* sql`UPDATE sync_jobs SET state = ${state}, counts = ${JSON.stringify(counts)}::jsonb, finished_at = now(),
            progress = CASE WHEN ${state} = 'error' THEN progress
                            ELSE jsonb_build_object('done', progress->'total', 'total', progress->'total') END,
            error_reason = ${Option.match(error, { onNone: () => null, onSome: (e) => e.reason })},
            error_message = ${Option.match(error, { onNone: () => null, onSome: (e) => e.message })},
            error_parts = ${
          Option.match(error, { onNone: () => null, onSome: (e) => e.parts === undefined ? null : JSON.stringify(e.parts) })
        }::jsonb
          WHERE ${owned(claim)} AND state = 'sincronizando' RETURNING id`.pipe(Effect.orDie, Effect.map((rows) => rows.length > 0))
      }
    )

    /**
     * Fails the connection's queued jobs that no worker holds: no login is tried for them. Only while the
     * connection still holds the credentials `claim` logged in with: replaced ones are yet to be tried.
     */
    const failQueued = Effect.fn("SyncJobs.failQueued")(function* (claim: ClaimedJob, error: JobError) {
      return yield* sql`UPDATE sync_jobs SET state = 'error', finished_at = now(), error_reason = ${error.reason}, error_message = ${error.message}
          WHERE id IN (SELECT id FROM sync_jobs WHERE connection_id = ${claim.connectionId} AND state = 'en_cola' FOR UPDATE SKIP LOCKED)
            AND EXISTS (SELECT 1 FROM connections WHERE id = ${claim.connectionId} AND credentials_generation = ${claim.credentialsGeneration})
          RETURNING id`.pipe(Effect.orDie, Effect.map((rows) => rows.length))
    })

    const retryLater = Effect.fn("SyncJobs.retryLater")(
      function* (claim: Claim, delay: Duration.Duration, error: { readonly reason: string; readonly message: string }) {
        return yield* sql`UPDATE sync_jobs SET state = 'en_cola', run_after = now() + ${`${
          Duration.toMillis(delay)
        } milliseconds`}::interval,
            error_reason = ${error.reason}, error_message = ${error.message}
          WHERE ${owned(claim)} AND state = 'sincronizando'`.pipe(Effect.orDie, Effect.asVoid)
      }
    )

    /** Hands a claimed job back without spending its attempt (its upstream session is busy elsewhere). */
    const release = Effect.fn("SyncJobs.release")(function* (claim: Claim, delay: Duration.Duration) {
      return yield* sql`UPDATE sync_jobs SET state = 'en_cola', attempts = attempts - 1,
            run_after = now() + ${`${Duration.toMillis(delay)} milliseconds`}::interval
          WHERE ${owned(claim)} AND state = 'sincronizando'`.pipe(Effect.orDie, Effect.asVoid)
    })

    const { awaitJobs, watching, stopWaiting } = yield* makeJobWatch(byIds)

    return {
      enqueue,
      byIds,
      list,
      claim,
      renew,
      report,
      finish,
      failQueued,
      retryLater,
      release,
      awaitJobs,
      watching,
      stopWaiting
    }
  })
}) {}
