import { FileSystem, Path } from "@effect/platform"
import { Data, Effect, Schema } from "effect"
import { issuesOf, summary } from "../../../schema/Issues.ts"
import { BenchReport } from "../../../schema/luna/BenchMeters.ts"
import { type Brief, BriefJson } from "../../../schema/luna/Brief.ts"
import { makeFolder } from "../../Folders.ts"

/** A brief file that cannot be read as a replay (or a folder without any). */
export class BriefInvalid extends Data.TaggedError("BriefInvalid")<{ readonly message: string }> {}

/** One brief and the file it came from (NN-id.json). */
export interface BriefFile {
  readonly file: string
  readonly brief: Brief
}

const FILE = /^(\d{2,})-([a-z0-9-]+)\.json$/

const decodeBrief = Schema.decodeUnknown(BriefJson, { errors: "all" })
const encodeBrief = Schema.encode(BriefJson)

/** Every brief of a folder, in file-name order; a file that is not a brief, a name that is not NN-id.json or a repeated id is refused. */
export const readBriefs = Effect.fn("Bench.readBriefs")(function* (dir: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const names = yield* fs.readDirectory(dir).pipe(
    Effect.mapError(() => new BriefInvalid({ message: `cannot read the briefs folder ${dir}` }))
  )
  const files = names.filter((name) => name.endsWith(".json")).sort()
  if (files.length === 0) return yield* new BriefInvalid({ message: `no brief files (NN-id.json) in ${dir}` })
  const briefs = yield* Effect.forEach(files, (file) =>
    Effect.gen(function* () {
      const named = FILE.exec(file)
      if (named === null) {
        return yield* new BriefInvalid({ message: `${file}: a brief file is named NN-id.json (01-buscar-constructoras.json)` })
      }
      const text = yield* fs.readFileString(path.join(dir, file)).pipe(
        Effect.mapError(() => new BriefInvalid({ message: `${file}: cannot be read` }))
      )
      const brief = yield* decodeBrief(text).pipe(
        Effect.mapError((error) => {
          const { issues, total } = issuesOf(error, "")
          return new BriefInvalid({ message: `${file} is not a brief: ${summary(issues, total)}` })
        })
      )
      if (brief.id !== named[2]) return yield* new BriefInvalid({ message: `${file}: its id is ${brief.id}, the file says ${named[2]}` })
      return { file, brief } satisfies BriefFile
    }))
  const seen = new Set<string>()
  for (const { brief, file } of briefs) {
    if (seen.has(brief.id)) return yield* new BriefInvalid({ message: `${file}: the id ${brief.id} is used twice` })
    seen.add(brief.id)
  }
  return briefs
})

/** Writes a brief as a replay file (two-space JSON, a final newline). */
export const writeBrief = Effect.fn("Bench.writeBrief")(function* (dir: string, file: string, brief: Brief) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  yield* makeFolder(dir, 0o755)
  yield* fs.writeFileString(path.join(dir, file), `${yield* Effect.orDie(encodeBrief(brief))}\n`)
})

const sorted = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sorted)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sorted(v)]))
}

/** The report as JSON with its keys sorted: two runs of the same briefs give the same bytes. */
export const reportJson = (report: BenchReport) => `${JSON.stringify(sorted(Schema.encodeSync(BenchReport)(report)), null, 2)}\n`
