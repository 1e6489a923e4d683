import { Effect } from "effect"
import { type Attack, range, report } from "./Attack.ts"
import { execute, tally } from "./Http.ts"
import { scalar, stage } from "./Stage.ts"

// PostgreSQL publishes a backend's counters when it goes idle, at the latest after 10 s
const STATS_SETTLE = "11 seconds"

/** Requests with an unknown key: database transactions they cost, and whether any is rate limited. */
export const badKey: Attack = {
  name: "badkey",
  run: (settings) =>
    Effect.gen(function* () {
      // no sync-worker polling: the transactions counted are the requests'
      const { service, sql } = yield* stage(settings.adminUrl, "badkey", { BREIN_SYNC_POLL_MS: "3600000" })
      const attempts = settings.quick ? 1_000 : 5_000
      const unknown = `brein_sk_${"0".repeat(40)}`
      const transactions = scalar(
        sql,
        "SELECT xact_commit + xact_rollback AS value FROM pg_stat_database WHERE datname = current_database()"
      )
      yield* Effect.sleep(STATS_SETTLE)
      const before = yield* transactions
      const statuses = yield* Effect.forEach(
        range(attempts),
        () =>
          execute(service.origin, unknown, "core.timestamp.now", {}).pipe(
            Effect.map((a) => a.status),
            Effect.catchTag("RequestFailed", (e) => Effect.succeed(e.code))
          ),
        { concurrency: 16 }
      )
      yield* Effect.sleep(STATS_SETTLE)
      // two reads of our own are in the delta
      const spent = (yield* transactions) - before - 2
      yield* report(
        "bad key",
        attempts,
        `${spent.toLocaleString("en")} database transactions (${(spent / attempts).toFixed(2)} per request), ${
          statuses.filter((s) => s === 429).length
        } answered 429; ${tally(statuses)}`
      )
    })
}
