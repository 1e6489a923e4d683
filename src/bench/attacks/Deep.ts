import { Effect } from "effect"
import { type Attack, report } from "./Attack.ts"
import { type Answer, errorTag, executeRaw, mcpCall, mcpOutcome } from "./Http.ts"
import { scalar, stage } from "./Stage.ts"

// built as text: JSON.stringify of 100,000 levels would overflow this process's stack too
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

const rest = (answer: Answer) => {
  if (answer.text === "") return `empty ${answer.status}`
  const tag = errorTag(answer.text)
  return tag === undefined ? `${answer.status} ${answer.text.slice(0, 60)}` : `typed ${answer.status} ${tag}`
}

/** Input nested 3,000 and 100,000 levels deep over REST and MCP: a typed refusal, or an empty 500 with no trace. */
export const deep: Attack = {
  name: "deep",
  run: (settings) =>
    Effect.gen(function* () {
      const { service, keys, sql } = yield* stage(settings.adminUrl, "deep")
      const rows = scalar(sql, "SELECT count(*) AS value FROM audit_log")
      for (const depth of [3_000, 100_000]) {
        for (const surface of ["REST", "MCP"] as const) {
          const [rowsBefore, linesBefore] = [yield* rows, yield* service.lines]
          const args = `{"message":"deep","nested":${nested(depth)}}`
          const outcome = yield* (surface === "REST"
            ? Effect.map(executeRaw(service.origin, keys.paid, "echo.message.reflect", `{"input":${args}}`), rest)
            : Effect.map(mcpCall(service.origin, keys.paid, "echo.message.reflect", args), (a) => `HTTP ${a.status} ${mcpOutcome(a)}`))
            .pipe(Effect.catchTag("RequestFailed", (e) => Effect.succeed(`no answer (${e.code})`)))
          // the log line, if any, is written as the answer goes out
          yield* Effect.sleep("300 millis")
          const [rowsAfter, linesAfter] = [yield* rows, yield* service.lines]
          yield* report(
            `deep nesting ${surface} ${depth.toLocaleString("en")} levels`,
            1,
            `${outcome}, ${rowsAfter > rowsBefore ? "audit row written" : "no audit row"}, ${
              linesAfter > linesBefore ? `${linesAfter - linesBefore} log line(s)` : "no log line"
            }`
          )
        }
      }
    })
}
