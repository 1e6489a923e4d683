import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Config, Console, Effect, Layer } from "effect"
import { LoggingLive } from "../../layers/Logging.ts"
import type { AnchorsInput } from "../../schema/luna/Anchors.ts"
import { checkAnchors } from "../../services/luna/anchors/Validate.ts"
import { anchorsCorpus } from "./AnchorsCorpus.ts"
import { settingsFirst, wholeNumber } from "./Settings.ts"

const settings = Config.all({
  narrations: wholeNumber("BENCH_NARRATIONS", { min: 1, max: 100_000, unit: "narrations" }, 400),
  millis: wholeNumber("BENCH_MILLIS", { min: 1, max: 600_000, unit: "milliseconds" }, 1_000)
})

interface Pass {
  readonly perSecond: number
  readonly passes: number
}

/** Runs `work` over the whole corpus, pass after pass, for about `millis` (after one warm-up pass). */
const throughput = (corpus: ReadonlyArray<AnchorsInput>, millis: number, work: (input: AnchorsInput) => unknown) =>
  Effect.sync((): Pass => {
    for (const input of corpus) work(input)
    let passes = 0
    const start = performance.now()
    let elapsed = 0
    while (elapsed < millis) {
      for (const input of corpus) work(input)
      passes++
      elapsed = performance.now() - start
    }
    return { perSecond: (passes * corpus.length) / (elapsed / 1000), passes }
  })

/** The least any checker must do: read every result once. */
const baseline = (input: AnchorsInput) => JSON.stringify(input.results).length

const n = (value: number) => Math.round(value).toLocaleString("en-US")

const program = Effect.gen(function* () {
  const { millis, narrations } = yield* settings
  const corpus = anchorsCorpus(narrations)
  const reports = corpus.map(checkAnchors)
  const anchors = reports.reduce((sum, r) => sum + r.anchors.length, 0)
  const unanchored = reports.reduce((sum, r) => sum + r.unanchored_figures.length, 0)
  const bytes = corpus.reduce((sum, input) => sum + baseline(input), 0)
  yield* Console.log(
    `bench:anchors  ${corpus.length} narrations (${
      n(bytes / corpus.length)
    } bytes of results each), ${anchors} anchored and ${unanchored} unanchored figures, ` +
      `${reports.filter((r) => r.ok).length} ok; about ${millis} ms per side`
  )
  const base = yield* throughput(corpus, millis / 2, baseline)
  const checked = yield* throughput(corpus, millis, checkAnchors)
  yield* Console.log([
    `  baseline  JSON.stringify of the results   ${n(base.perSecond).padStart(10)} narrations/s  (${base.passes} passes)`,
    `  checkAnchors                              ${n(checked.perSecond).padStart(10)} narrations/s  (${checked.passes} passes)`,
    `  checkAnchors/baseline = ${(checked.perSecond / base.perSecond).toFixed(2)}×  (${
      (1e6 / checked.perSecond).toFixed(0)
    } µs per narration)`
  ].join("\n"))
})

program.pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, LoggingLive)),
  settingsFirst(settings),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
