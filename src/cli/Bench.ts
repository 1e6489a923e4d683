import { Command, HelpDoc, Options, ValidationError } from "@effect/cli"
import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option } from "effect"
import { loaded } from "./Loaded.ts"
import { database, databaseSettings } from "./Settings.ts"

const briefsOption = Options.text("briefs").pipe(
  Options.withPseudoName("DIR"),
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
  Options.withPseudoName("FILE"),
  Options.withDescription("Also write the meters as JSON to this file (sorted keys, no times: two runs give the same bytes)"),
  Options.mapEffect(writableFile),
  Options.optional
)
const recordOption = Options.boolean("record").pipe(
  Options.withDescription("Run each brief's message against the configured model (LUNA_MODEL_…) and write the replies as new replay files")
)
const outOption = Options.text("out").pipe(
  Options.withPseudoName("DIR"),
  Options.withDescription("Where --record writes its replay files (default: a new folder bench/recorded/<time>)"),
  Options.mapEffect(writableFolder),
  Options.optional
)

export const benchCommand = Command.make(
  "bench",
  { ...database, briefs: briefsOption, json: jsonOption, record: recordOption, out: outOption },
  (options) => loaded(() => import("./BenchRun.ts"), (run) => run.bench(options)).pipe(databaseSettings(options))
).pipe(
  Command.withDescription(
    "Replay Luna's briefs through the real loop, registry, executor and anchoring validator on a throwaway database, and print the meters (exit 1 when a brief misses its expectations)"
  )
)
