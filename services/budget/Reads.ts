import { SqlClient } from "@effect/sql"
import { Clock, Config, Effect, Option, Schema } from "effect"
import { ReadCeilingReached } from "../../schema/Errors.ts"
import type { Principal } from "../../schema/Principal.ts"
import type { Plan } from "../../schema/tools/Definition.ts"

const HOUR_MS = 3_600_000

const Taken = Schema.Struct({ allowed: Schema.Boolean, used: Schema.Int, oldest: Schema.NullOr(Schema.DateFromSelf) })
const decodeTaken = Schema.decodeUnknown(Schema.Array(Taken))
const Window = Schema.Struct({ used: Schema.NumberFromString, oldest: Schema.NullOr(Schema.DateFromSelf) })
const decodeWindow = Schema.decodeUnknown(Schema.Array(Window))

export const ReadLimits = Config.all({
  free: Config.integer("BREIN_READS_PER_HOUR_FREE").pipe(Config.withDefault(100)),
  paid: Config.integer("BREIN_READS_PER_HOUR_PAID").pipe(Config.withDefault(1000))
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
      return { kind: "read" as const, reads: 1, used: taken.used, limit, resets_at: resetsAt.toISOString() }
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

    return { take, usage, limitOf }
  })
}) {}
