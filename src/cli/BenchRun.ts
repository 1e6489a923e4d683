import { FileSystem, Path } from "@effect/platform"
import { Clock, Console, Duration, Effect, Option } from "effect"
import { fileURLToPath } from "node:url"
import { benchWith, RecordingModelLive, ScriptedModelLive } from "../../layers/LunaBench.ts"
import { ModelGatewayLive } from "../../layers/LunaModel.ts"
import { type BriefFile, readBriefs, reportJson, writeBrief } from "../../services/luna/bench/BriefFiles.ts"
import { type BriefRun, recordedBrief, runBriefs, seedBench } from "../../services/luna/bench/Replay.ts"
import { reportTable } from "../../services/luna/bench/Table.ts"
import { ModelGateway } from "../../services/luna/ModelGateway.ts"
import { CommandFailed } from "./Failure.ts"

/** The repository's bench/briefs, found from the running file whether it runs from src/ or from the bundle in dist/bin. */
const defaultBriefs = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const candidates = ["../bench/briefs", "../../bench/briefs", "../../../bench/briefs"].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url))
  )
  const found = yield* Effect.findFirst(candidates, (dir) => fs.exists(dir).pipe(Effect.orElseSucceed(() => false)))
  return Option.getOrElse(found, () => "bench/briefs")
})

const seconds = (millis: number) => `${(millis / 1000).toFixed(1)} s`

const stamp = Effect.map(Clock.currentTimeMillis, (now) => new Date(now).toISOString().replace(/[:.]/g, "-").slice(0, 19))

const writeRecorded = (dir: string, files: ReadonlyArray<BriefFile>, runs: ReadonlyArray<BriefRun>) =>
  Effect.forEach(
    runs,
    (run, i) => writeBrief(dir, files[i]?.file ?? `${String(i + 1).padStart(2, "0")}-${run.brief.id}.json`, recordedBrief(run)),
    {
      discard: true
    }
  )

/** `brein bench`, loaded when it runs (its options are checked in src/cli/Bench.ts). */
export const bench = (options: {
  readonly briefs: Option.Option<string>
  readonly json: Option.Option<string>
  readonly record: boolean
  readonly out: Option.Option<string>
}) =>
  Effect.gen(function* () {
    const dir = Option.isSome(options.briefs) ? options.briefs.value : yield* defaultBriefs
    const files = yield* readBriefs(dir)
    if (options.record) yield* Effect.flatMap(ModelGateway, (gateway) => gateway.ready).pipe(Effect.provide(ModelGatewayLive))
    const run = Effect.gen(function* () {
      const [seeding, seeded] = yield* Effect.timed(seedBench())
      yield* Console.error(
        `bench: a throwaway database with ${seeded.companies.toLocaleString("en-US")} companies and ${
          seeded.awards.toLocaleString("en-US")
        } awards (${seconds(Duration.toMillis(seeding))}); ${files.length} briefs from ${dir}${
          options.record ? " against the configured model" : ""
        }`
      )
      return yield* runBriefs(files.map((f) => f.brief))
    })
    const done = yield* run.pipe(Effect.provide(benchWith(options.record ? RecordingModelLive : ScriptedModelLive)))
    yield* Console.log(
      reportTable(done.report, done.runs.map((r, i) => ({ file: files[i]?.file ?? r.brief.id, millis: r.millis })), done.millis)
    )
    if (Option.isSome(options.json)) yield* (yield* FileSystem.FileSystem).writeFileString(options.json.value, reportJson(done.report))
    if (options.record) {
      const path = yield* Path.Path
      const out = Option.isSome(options.out) ? options.out.value : path.join(path.dirname(dir), "recorded", yield* stamp)
      yield* writeRecorded(out, files, done.runs)
      yield* Console.log(`  wrote ${done.runs.length} replay files to ${out}`)
    }
    const failed = done.report.totals.failed
    if (failed > 0) {
      return yield* new CommandFailed({
        message: `${failed} of ${done.report.totals.briefs} briefs missed their expectations`,
        exitCode: 1
      })
    }
  })
