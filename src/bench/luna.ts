import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Duration, Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import { LoggingLive } from "../../layers/Logging.ts"
import { benchWith, ScriptedModelLive } from "../../layers/LunaBench.ts"
import { readBriefs } from "../../services/luna/bench/BriefFiles.ts"
import { runBriefs, seedBench } from "../../services/luna/bench/Replay.ts"
import { WALL_GOAL_MS } from "../../services/luna/bench/Table.ts"
import { baselineOf } from "./LunaBaseline.ts"

const BRIEFS = fileURLToPath(new URL("../../bench/briefs", import.meta.url))
const ROUNDS = 2

const sum = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0)
const row = (label: string, millis: number) => `    ${label.padEnd(62)} ${millis.toFixed(0).padStart(6)} ms`

const program = Effect.gen(function* () {
  const files = yield* readBriefs(BRIEFS)
  const briefs = files.map((f) => f.brief)
  const [seeding, seeded] = yield* Effect.timed(seedBench())
  yield* Console.log(
    `bench:luna  ${briefs.length} briefs replayed through Luna's loop (scripted model, real registry, executor and validator) on a throwaway database ` +
      `(${seeded.companies.toLocaleString("en-US")} companies, ${seeded.awards.toLocaleString("en-US")} awards, seeded in ${
        (Duration.toMillis(seeding) / 1000).toFixed(1)
      } s, not counted)`
  )
  for (let round = 1; round <= ROUNDS; round++) {
    const loop = yield* runBriefs(briefs)
    const base = yield* Effect.forEach(loop.runs, baselineOf)
    const turns = sum(loop.runs.map((r) => r.turnMillis))
    const direct = sum(base.map((b) => b.millis))
    const failed = loop.report.totals.failed
    yield* Console.log([
      "",
      `  round ${round}${round === 1 ? " (cold, as `brein bench` runs)" : " (warm)"}:`,
      `${row(`the ${briefs.length} briefs, each with its workspace and setup`, loop.millis)}  (goal ≤ ${WALL_GOAL_MS / 1000} s: ${
        loop.millis <= WALL_GOAL_MS ? "met" : "MISSED"
      })${failed === 0 ? "" : `; ${failed} briefs MISSED their expectations`}`,
      row("their turns through the loop", turns),
      row(`baseline: their ${sum(base.map((b) => b.calls))} tool calls straight through the executor`, direct),
      `    loop/baseline = ${
        (turns / Math.max(direct, 1)).toFixed(2)
      }×  (the loop's share: events written and read back, the board, the validator)`
    ].join("\n"))
  }
})

program.pipe(
  Effect.provide(benchWith(ScriptedModelLive)),
  Effect.provide(Layer.mergeAll(NodeContext.layer, LoggingLive)),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
