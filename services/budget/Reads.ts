import { SqlClient } from "@effect/sql"
import { Cause, Clock, Config, Effect, Option, Schema } from "effect"
import { ReadCeilingReached } from "../../schema/Errors.ts"
import type { Principal } from "../../schema/Principal.ts"
import { setting, WholeNumberFromString } from "../../schema/Setting.ts"
import type { Plan } from "../../schema/tools/Definition.ts"

const HOUR_MS = 3_600_000

/** The read a call took: which row of the hour is its own. */
export interface ReadTaken {
  readonly requestId: string
  readonly at: Date
}

const Taken = Schema.Struct({ allowed: Schema.Boolean, used: Schema.Int, oldest: Schema.NullOr(Schema.DateFromSelf) })
const decodeTaken = Schema.decodeUnknown(Schema.Array(Taken))
const Window = Schema.Struct({ used: Schema.NumberFromString, oldest: Schema.NullOr(Schema.DateFromSelf) })
const decodeWindow = Schema.decodeUnknown(Schema.Array(Window))

// 0 refused every read saying the hour's 0 reads were made; brein_take_read takes a PostgreSQL integer
const ReadsPerHour = WholeNumberFromString({ min: 1, max: 2_147_483_647 })

export const ReadLimits = Config.all({
  free: setting("BREIN_READS_PER_HOUR_FREE", ReadsPerHour).pipe(Config.withDefault(100)),
  paid: setting("BREIN_READS_PER_HOUR_PAID", ReadsPerHour).pipe(Config.withDefault(1000))
})

/**
 * The hourly read ceiling: every call of a `read`-cost tool counts against its workspace's plan over
 * a sliding hour, in PostgreSQL (exact across processes and restarts), by the clock the call runs on.
 */
export class Reads extends Effect.Service<Reads>()("brein/budget/Reads", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const limits = yield* ReadLimits
    const limitOf = (plan: Plan) => limits[plan]
    const resetOf = (oldest: Date | null, now: number) => new Date((oldest?.getTime() ?? now) + HOUR_MS)

    const take = Effect.fn("Reads.take")(function* (principal: Principal, requestId: string) {
      const now = yield* Clock.currentTimeMillis
      const limit = limitOf(principal.plan)
      // inside a caller's transaction, its commit must stay as durable as it was
      const ownCommit = Option.isNone(yield* Effect.serviceOption(SqlClient.TransactionConnection))
      const [taken] = yield* sql`SELECT allowed, used, oldest FROM brein_take_read(${principal.workspaceId}, ${new Date(now)},
        interval '1 hour', ${limit}, ${requestId}, ${ownCommit})`.pipe(Effect.flatMap(decodeTaken), Effect.orDie)
      const resetsAt = resetOf(taken?.oldest ?? null, now)
      if (taken === undefined || !taken.allowed) {
        const retryAfterSeconds = Math.max(1, Math.ceil((resetsAt.getTime() - now) / 1000))
        return yield* new ReadCeilingReached({
          message:
            `this workspace made its ${limit} reads of the hour (plan ${principal.plan}); the next one frees at ${resetsAt.toISOString()}`,
          limit,
          used: taken?.used ?? limit,
          resetsAt: resetsAt.toISOString(),
          retryAfterSeconds,
          hint: "Wait until resetsAt, or move the workspace to the paid plan for a higher ceiling",
          next_actions: [{ method: "GET", path: "/api/v1/usage", reason: "see the hour's reads and when they free" }]
        })
      }
      return {
        cost: { kind: "read" as const, reads: 1, used: taken.used, limit, resets_at: resetsAt.toISOString() },
        taken: { requestId, at: new Date(now) }
      }
    })

    /**
     * Gives back a read a call took but did not use (it answered an error): its row leaves the hour and
     * the window's count, under the lock a take holds, so a take never writes back a count from before.
     * A read that already left the hour is gone from both, and this changes nothing.
     */
    const release = Effect.fn("Reads.release")(function* (principal: Principal, taken: ReadTaken) {
      yield* sql.withTransaction(Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${"brein.reads:" + principal.workspaceId}, 0))`
        yield* sql`WITH gone AS (
            DELETE FROM read_usage WHERE workspace_id = ${principal.workspaceId} AND at = ${taken.at} AND request_id = ${taken.requestId}
            RETURNING 1)
          UPDATE read_windows SET used = used - (SELECT count(*) FROM gone)
          WHERE workspace_id = ${principal.workspaceId} AND EXISTS (SELECT 1 FROM gone)`
      })).pipe(Effect.catchAll((error) => Effect.logWarning("a read the call did not use could not be given back", Cause.fail(error))))
    })

    const usage = Effect.fn("Reads.usage")(function* (principal: Principal) {
      const now = yield* Clock.currentTimeMillis
      const limit = limitOf(principal.plan)
      const [window] = yield* sql`SELECT count(*) AS used, min(at) AS oldest FROM read_usage
        WHERE workspace_id = ${principal.workspaceId} AND at > ${new Date(now - HOUR_MS)}`.pipe(Effect.flatMap(decodeWindow), Effect.orDie)
      const used = Math.min(window?.used ?? 0, limit)
      return {
        used,
        limit,
        remaining: limit - used,
        window: "1h" as const,
        resets_at: window?.oldest == null ? null : resetOf(window.oldest, now).toISOString()
      }
    })

    return { take, release, usage, limitOf }
  })
}) {}
