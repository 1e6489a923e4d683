import { Config, Duration, Effect } from "effect"
import { DecimalFromString, setting, WholeNumberFromString } from "../../schema/Setting.ts"
import { timeScaleConfig } from "../upstream/SimulatorClock.ts"

/** Knobs of the sync machinery; tests shorten them, production keeps the defaults. */
export class SyncSettings extends Effect.Service<SyncSettings>()("brein/sync/SyncSettings", {
  effect: Effect.gen(function* () {
    const timeScale = yield* timeScaleConfig
    const leaseSeconds = yield* setting(
      "BREIN_SYNC_LEASE_SECONDS",
      DecimalFromString({ min: 0, aboveMin: true, max: 86_400, unit: "seconds" })
    ).pipe(Config.withDefault(30))
    // 0 started a worker that never claims a job
    const concurrency = yield* setting("BREIN_SYNC_CONCURRENCY", WholeNumberFromString({ min: 1 })).pipe(Config.withDefault(4))
    // jobs.max_attempts is a PostgreSQL integer
    const maxAttempts = yield* setting("BREIN_SYNC_MAX_ATTEMPTS", WholeNumberFromString({ min: 1, max: 2_147_483_647 })).pipe(
      Config.withDefault(3)
    )
    const pollMs = yield* setting("BREIN_SYNC_POLL_MS", WholeNumberFromString({ min: 10, max: 86_400_000, unit: "milliseconds" })).pipe(
      Config.withDefault(5000)
    )
    const worker = yield* Config.boolean("BREIN_SYNC_WORKER").pipe(Config.withDefault(true))
    return {
      /** 1 = production-like upstream latencies and retry waits; 0 = instant (tests). */
      timeScale,
      lease: Duration.seconds(leaseSeconds),
      concurrency,
      maxAttempts,
      poll: Duration.millis(pollMs),
      /** Whether this process runs sync jobs (every server process does by default). */
      worker,
      retryDelay: (retryAfterSeconds: number) => Duration.millis(Math.max(50, retryAfterSeconds * 1000 * timeScale))
    }
  })
}) {}
