import { Config, Duration, Effect } from "effect"
import { timeScaleConfig } from "../upstream/SimulatorClock.ts"

/** Knobs of the sync machinery; tests shorten them, production keeps the defaults. */
export class SyncSettings extends Effect.Service<SyncSettings>()("brein/sync/SyncSettings", {
  effect: Effect.gen(function* () {
    const timeScale = yield* timeScaleConfig
    const leaseSeconds = yield* Config.number("BREIN_SYNC_LEASE_SECONDS").pipe(Config.withDefault(30))
    const concurrency = yield* Config.integer("BREIN_SYNC_CONCURRENCY").pipe(Config.withDefault(4))
    const maxAttempts = yield* Config.integer("BREIN_SYNC_MAX_ATTEMPTS").pipe(Config.withDefault(3))
    const pollMs = yield* Config.integer("BREIN_SYNC_POLL_MS").pipe(Config.withDefault(5000))
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
