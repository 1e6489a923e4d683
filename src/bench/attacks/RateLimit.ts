import { Effect } from "effect"
import { type Attack, range, report } from "./Attack.ts"
import { execute, mcpCall, mcpOutcome, tally } from "./Http.ts"
import { stage } from "./Stage.ts"

const LIMIT = "300/60s"

/** One key far beyond any sane per-key limit: 429s with Retry-After over HTTP, then the same limit over MCP. */
export const rateLimit: Attack = {
  name: "ratelimit",
  run: (settings) =>
    Effect.gen(function* () {
      const { service, keys } = yield* stage(settings.adminUrl, "ratelimit", { BREIN_RATE_LIMIT_KEY: LIMIT })
      const attempts = settings.quick ? 500 : 3_000
      const answers = yield* Effect.forEach(
        range(attempts),
        () =>
          execute(service.origin, keys.paid, "core.timestamp.now", {}).pipe(
            Effect.map((a) => ({ status: a.status, retryAfter: a.headers.get("retry-after") })),
            Effect.catchTag("RequestFailed", (e) => Effect.succeed({ status: e.code, retryAfter: null }))
          ),
        { concurrency: 8 }
      )
      const limited = answers.filter((a) => a.status === 429)
      const withRetryAfter = limited.filter((a) => a.retryAfter !== null)
      const firstLimited = answers.findIndex((a) => a.status === 429)
      const mcp = yield* Effect.forEach(range(10), () =>
        mcpCall(service.origin, keys.paid, "core.timestamp.now", "{}").pipe(
          Effect.map((a) => (/RateLimited|rate limit/i.test(a.text) ? `rate limited (${mcpOutcome(a)})` : mcpOutcome(a))),
          Effect.catchTag("RequestFailed", (e) => Effect.succeed(e.code))
        ))
      yield* report(
        `rate limit (one key limited to ${LIMIT}, 8 at once)`,
        attempts,
        `${limited.length} answered 429 (${withRetryAfter.length} with Retry-After${
          withRetryAfter[0] ? `: ${withRetryAfter[0].retryAfter} s` : ""
        }${firstLimited >= 0 ? `, first at request ${firstLimited + 1}` : ""}); ${tally(answers.map((a) => a.status))}; MCP right after: ${
          tally(mcp)
        }`
      )
    })
}
