import { Config, Context, Duration, Layer } from "effect"
import { setting, WholeNumberFromString } from "../../schema/Setting.ts"

/** How the dispatcher runs: whether at all, how often it looks without a reason to wake, how long a claim holds. */
export class DispatchSettings extends Context.Tag("brein/sequences/DispatchSettings")<DispatchSettings, {
  readonly enabled: boolean
  /** The longest sleep between two passes (replies and bounces are read on each pass). */
  readonly poll: Duration.Duration
  /** How long a claimed send is left to its process before another reconciles it: longer than the mail client's timeout. */
  readonly lease: Duration.Duration
  /** Sends whose outcome stayed unknown this many times fail. */
  readonly maxAttempts: number
  /** Mailboxes served at once. */
  readonly concurrency: number
}>() {}

export const DISPATCH_DEFAULTS = { poll: Duration.seconds(30), lease: Duration.minutes(2), maxAttempts: 5, concurrency: 4 } as const

/** BREIN_DISPATCHER (on|off, default on), BREIN_DISPATCHER_POLL_SECONDS (30), BREIN_DISPATCHER_LEASE_SECONDS (120). */
export const DispatchSettingsLive = Layer.effect(
  DispatchSettings,
  Config.all({
    enabled: Config.literal("on", "off")("BREIN_DISPATCHER").pipe(Config.withDefault("on")),
    poll: setting("BREIN_DISPATCHER_POLL_SECONDS", WholeNumberFromString({ min: 1, unit: "seconds" })).pipe(Config.withDefault(30)),
    lease: setting("BREIN_DISPATCHER_LEASE_SECONDS", WholeNumberFromString({ min: 45, unit: "seconds" })).pipe(Config.withDefault(120))
  }).pipe(Config.map(({ enabled, poll, lease }) => ({
    ...DISPATCH_DEFAULTS,
    enabled: enabled === "on",
    poll: Duration.seconds(poll),
    lease: Duration.seconds(lease)
  })))
)
