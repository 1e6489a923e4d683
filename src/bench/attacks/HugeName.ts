import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { type Attack, range, report } from "./Attack.ts"
import { mcpCall, mcpOutcome, megabytes, tally } from "./Http.ts"
import { scalar, stage } from "./Stage.ts"

// random text: PostgreSQL would compress a repeated character to almost nothing
const name = () => randomBytes(675 * 1024).toString("base64url")

/** MCP tools/call with a 900 KB tool name from a free key: how much the append-only log grows. */
export const hugeName: Attack = {
  name: "huge",
  run: (settings) =>
    Effect.gen(function* () {
      const { service, keys, sql } = yield* stage(settings.adminUrl, "huge")
      const attempts = settings.quick ? 10 : 50
      const size = scalar(sql, "SELECT pg_total_relation_size('audit_log') AS value")
      const rows = scalar(sql, "SELECT count(*) AS value FROM audit_log")
      const [sizeBefore, rowsBefore] = [yield* size, yield* rows]
      const outcomes = yield* Effect.forEach(
        range(attempts),
        () =>
          mcpCall(service.origin, keys.free, name(), "{}").pipe(
            Effect.map((a) => `${a.status} ${mcpOutcome(a)}`),
            Effect.catchTag("RequestFailed", (e) => Effect.succeed(e.code))
          ),
        { concurrency: 2 }
      )
      const longest = yield* scalar(sql, "SELECT coalesce(max(length(tool_id)), 0) AS value FROM audit_log")
      const [sizeAfter, rowsAfter] = [yield* size, yield* rows]
      yield* report(
        "huge MCP tool name (900 KB)",
        attempts,
        `audit_log +${megabytes(sizeAfter - sizeBefore)} (+${rowsAfter - rowsBefore} rows, longest tool_id ${
          longest.toLocaleString("en")
        } chars); answers ${tally(outcomes)}`
      )
    })
}
