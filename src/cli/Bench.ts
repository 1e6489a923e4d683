import { Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Clock, Console, Duration, Effect, Option } from "effect"
import { fileURLToPath } from "node:url"
import { benchWith, RecordingModelLive, ScriptedModelLive } from "../../layers/LunaBench.ts"
import { ModelGatewayLive } from "../../layers/LunaModel.ts"
import { type BriefFile, readBriefs, reportJson, writeBrief } from "../../services/luna/bench/BriefFiles.ts"
import { type BriefRun, recordedBrief, runBriefs, seedBench } from "../../services/luna/bench/Replay.ts"
import { reportTable } from "../../services/luna/bench/Table.ts"
import { ModelGateway } from "../../services/luna/ModelGateway.ts"
import { CommandFailed } from "./Failure.ts"
import { database, databaseSettings } from "./Settings.ts"

const briefsOption = Options.text("briefs").pipe(
  Options.withDescription("The folder of brief files, NN-id.json (default: the repository's bench/briefs)"),
  Options.optional
)
/** What a path holds, or none when nothing is there. */
const found = (fs: FileSystem.FileSystem, path: string) =>
  fs.stat(path).pipe(
    Effect.map(Option.some),
    Effect.catchIf(
      (error: PlatformError) => error._tag === "SystemError" && error.reason === "NotFound",
      () => Effect.succeedNone
    )
  )

const reason = (error: PlatformError) => error._tag === "SystemError" ? error.reason : error.message

/**
 * The --json file, checked before the run (which takes a while) and left untouched: it must be a file
 * or a new name in a folder that exists, and writable.
 */
const writableFile = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (file.trim() === "") return yield* Effect.fail("must name a file")
    const folder = path.dirname(path.resolve(file))
    const parent = yield* found(fs, folder)
    if (Option.isNone(parent)) return yield* Effect.fail(`${file}: there is no folder ${folder}`)
    if (parent.value.type !== "Directory") return yield* Effect.fail(`${file}: ${folder} is not a folder`)
    const target = yield* found(fs, file)
    if (Option.isSome(target) && target.value.type === "Directory") return yield* Effect.fail(`${file} is a directory, not a file`)
    // open, not access: root passes access(W_OK) on folders that take no file (/proc); a pipe's open would wait for a reader
    const opened = Option.isNone(target)
      ? Effect.zipRight(Effect.scoped(fs.open(file, { flag: "wx" })), fs.remove(file))
      : target.value.type === "File"
      ? Effect.scoped(fs.open(file, { flag: "a" }))
      : fs.access(file, { writable: true })
    yield* opened.pipe(
      Effect.mapError((error) =>
        Option.isSome(target)
          ? `${file} cannot be written (${reason(error)})`
          : `${file} cannot be written: ${folder} takes no new file (${reason(error)})`
      )
    )
    return file
  }).pipe(
    Effect.mapError((error) =>
      ValidationError.invalidValue(HelpDoc.p(`--json ${typeof error === "string" ? error : `cannot write ${file}: ${error.message}`}`))
    )
  )

/**
 * The --out folder of --record, checked before the run (which spends the model's calls): a folder, or a
 * new one (made at the end, with its parents) under the nearest folder that exists, which is writable.
 */
const writableFolder = (dir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    if (dir.trim() === "") return yield* Effect.fail("must name a folder")
    // a name under a file is no more there than a missing one (ENOTDIR): the walk goes up to that file
    const there = (at: string) =>
      found(fs, at).pipe(
        Effect.catchIf((error) => error._tag === "SystemError" && error.reason === "BadResource", () => Effect.succeedNone)
      )
    let at = path.resolve(dir)
    let existing = yield* there(at)
    if (Option.isSome(existing) && existing.value.type !== "Directory") return yield* Effect.fail(`${dir} is a file, not a folder`)
    while (Option.isNone(existing) && path.dirname(at) !== at) {
      at = path.dirname(at)
      existing = yield* there(at)
    }
    if (Option.isSome(existing) && existing.value.type !== "Directory") return yield* Effect.fail(`${dir}: ${at} is not a folder`)
    // a folder made and removed, not access: root passes access(W_OK) where nothing can be made (/proc)
    yield* fs.makeTempDirectory({ directory: at, prefix: ".brein-bench-" }).pipe(
      Effect.flatMap((probe) => fs.remove(probe, { recursive: true })),
      Effect.mapError((error) => `${dir} cannot be written: ${at} takes no new folder (${reason(error)})`)
    )
    return dir
  }).pipe(
    Effect.mapError((error) =>
      ValidationError.invalidValue(HelpDoc.p(`--out ${typeof error === "string" ? error : `cannot write in ${dir}: ${error.message}`}`))
    )
  )

const jsonOption = Options.text("json").pipe(
  Options.withDescription("Also write the meters as JSON to this file (sorted keys, no times: two runs give the same bytes)"),
  Options.mapEffect(writableFile),
  Options.optional
)
const recordOption = Options.boolean("record").pipe(
  Options.withDescription("Run each brief's message against the configured model (LUNA_MODEL_…) and write the replies as new replay files")
)
const outOption = Options.text("out").pipe(
  Options.withDescription("Where --record writes its replay files (default: a new folder bench/recorded/<time>)"),
  Options.mapEffect(writableFolder),
  Options.optional
)

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

const bench = (options: {
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

export const benchCommand = Command.make(
  "bench",
  { ...database, briefs: briefsOption, json: jsonOption, record: recordOption, out: outOption },
  (options) => bench(options).pipe(databaseSettings(options))
).pipe(
  Command.withDescription(
    "Replay Luna's briefs through the real loop, registry, executor and anchoring validator on a throwaway database, and print the meters (exit 1 when a brief misses its expectations)"
  )
)
