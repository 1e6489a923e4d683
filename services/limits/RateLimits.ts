import { Config, ConfigError, Effect, Either, Option, Schema } from "effect"
import { RateLimited, SessionRequired, Unauthorized } from "../../schema/Errors.ts"
import { leading } from "../../schema/Length.ts"
import type { Principal } from "../../schema/Principal.ts"
import { type Limit, SlidingWindows } from "./SlidingWindows.ts"
import { sourceOf } from "./Source.ts"

export const DEFAULT_KEY_LIMIT = "6000/60s"
export const DEFAULT_FAILURE_LIMIT = "30/60s"
const MAX_KEYS = 10_000
const MAX_SOURCES = 50_000

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
const MAX_WINDOW_MS = 86_400_000
const SETTING = /^(\d+)\s*\/\s*(\d*)\s*(ms|s|m|h)$/

/** `600/60s`, `20/10m`, `100/s` (units ms, s, m, h; a window of a day at most); `0` or `off` turns the limit off. */
export const parseLimit = (text: string): Either.Either<Option.Option<Limit>, string> => {
  const trimmed = text.trim().toLowerCase()
  if (trimmed === "0" || trimmed === "off") return Either.right(Option.none())
  const match = SETTING.exec(trimmed)
  const limit = Number(match?.[1])
  const windowMs = (match?.[2] === "" ? 1 : Number(match?.[2])) * (UNITS[match?.[3] ?? ""] ?? NaN)
  if (windowMs > MAX_WINDOW_MS) return Either.left(`"${leading(text, 40)}" has a window longer than a day (24h at most)`)
  return Number.isSafeInteger(limit) && limit > 0 && windowMs > 0
    ? Either.right(Option.some({ limit, windowMs }))
    : Either.left(`"${leading(text, 40)}" is not a rate limit: write requests/window, e.g. 600/60s, 20/10m or 100/s; 0 or off turns it off`)
}

const limitConfig = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((text) => Either.mapLeft(parseLimit(text), (message) => ConfigError.InvalidData([name], message)))
  )

/** Both limits, read (and refused, if bad) by the service, and by `brein serve` before it starts anything. */
export const rateLimitSettings = Config.all([
  limitConfig("BREIN_RATE_LIMIT_KEY", DEFAULT_KEY_LIMIT),
  limitConfig("BREIN_RATE_LIMIT_FAILURES", DEFAULT_FAILURE_LIMIT)
])

const describe = ({ limit, windowMs }: Limit) =>
  `${limit.toLocaleString("en-US")} requests in ${windowMs % 1000 === 0 ? `${windowMs / 1000} s` : `${windowMs} ms`}`

const isUnauthorized = Schema.is(Unauthorized)
const isSessionRequired = Schema.is(SessionRequired)

/**
 * The abuse limits beneath the hourly read ceiling: requests per API key, and failed authentications
 * per source address. Counted in this process's memory (no query per request), so N processes allow
 * N times the limits.
 */
export class RateLimits extends Effect.Service<RateLimits>()("brein/limits/RateLimits", {
  effect: Effect.gen(function* () {
    const [perKey, perSource] = yield* rateLimitSettings
    const clock = yield* Effect.clock
    const keys = Option.map(perKey, (limit) => new SlidingWindows(limit, MAX_KEYS)).pipe(Option.getOrNull)
    const failures = Option.map(perSource, (limit) => new SlidingWindows(limit, MAX_SOURCES)).pipe(Option.getOrNull)

    const limited = (wait: number, what: (retryAfterSeconds: number) => string) => {
      const retryAfterSeconds = Math.max(1, Math.ceil(wait / 1000))
      return new RateLimited({ message: what(retryAfterSeconds), retryAfterSeconds })
    }

    // only a refused key counts: a lookup that failed for another reason (the database) says nothing of the sender
    const countFailure = (source: string) => (error: unknown) =>
      isUnauthorized(error) || isSessionRequired(error)
        ? Effect.sync(() => failures?.add(source, clock.unsafeCurrentTimeMillis()))
        : Effect.void

    const charge = <A>(what: string, keyOf: (a: A) => string) => (a: A): Effect.Effect<A, RateLimited> => {
      if (keys === null) return Effect.succeed(a)
      const wait = keys.take(keyOf(a), clock.unsafeCurrentTimeMillis())
      return wait === 0
        ? Effect.succeed(a)
        : Effect.fail(limited(wait, (after) => `${what} sent more than ${describe(keys.limit)}; retry in ${after} s`))
    }

    /**
     * `attempt` (a lookup of a credential) within the limits, counted per what it finds (`keyOf`). An
     * address over its failures is refused before the lookup, so a flood of bad credentials costs no
     * database work. A plain function rather than Effect.fn: it runs on every request, where a span costs
     * more than the check.
     */
    const within = <A, E>(
      address: string | undefined,
      attempt: Effect.Effect<A, E>,
      what: string,
      keyOf: (a: A) => string
    ): Effect.Effect<A, E | RateLimited> => {
      if (failures === null) return Effect.flatMap(attempt, charge(what, keyOf))
      const source = sourceOf(address)
      const wait = failures.wait(source, clock.unsafeCurrentTimeMillis())
      if (wait > 0) {
        return Effect.fail(
          limited(
            wait,
            (after) =>
              `this address sent more than ${describe(failures.limit)} with a missing, unknown or revoked API key; retry in ${after} s`
          )
        )
      }
      return attempt.pipe(Effect.tapError(countFailure(source)), Effect.flatMap(charge(what, keyOf)))
    }

    /** An API key lookup within the per-key and per-address limits. */
    const authenticate = <E>(address: string | undefined, attempt: Effect.Effect<Principal, E>) =>
      within(address, attempt, "this API key", (principal) => principal.keyId ?? principal.workspaceId)

    /** A session lookup within the same limits, counted per session. */
    const authenticateSession = <A extends { readonly sessionId: string }, E>(address: string | undefined, attempt: Effect.Effect<A, E>) =>
      within(address, attempt, "this session", (human) => `session:${human.sessionId}`)

    return { authenticate, authenticateSession, perKey, perSource } as const
  })
}) {}
