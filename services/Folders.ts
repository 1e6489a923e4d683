import { Data, Effect } from "effect"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"

/** What stood in the way: a file where a folder goes, a folder this user may not write, one the system makes none in. */
export type FolderProblem = "NotAFolder" | "PermissionDenied" | "NotCreatableHere" | "ReadOnly" | "Failed"

/** `folder` could not be made: `at` (it, or a parent on its way) is where, `code` the system's answer there. */
export class FolderNotCreated extends Data.TaggedError("FolderNotCreated")<{
  readonly folder: string
  readonly at: string
  readonly problem: FolderProblem
  readonly code: string
}> {
  override get message() {
    return `cannot create the folder ${this.folder}: ${explained(this)}`
  }
}

const explained = ({ at, code, problem }: FolderNotCreated) => {
  switch (problem) {
    case "NotAFolder":
      return `${at} is a file, not a folder`
    case "PermissionDenied":
      return `permission denied to create ${at} (${code})`
    case "NotCreatableHere":
      return `no folder can be created in ${Path.dirname(at)} (${code})`
    case "ReadOnly":
      return `${Path.dirname(at)} is on a read-only filesystem`
    case "Failed":
      return `${at} could not be made (${code})`
  }
}

const codeOf = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : "unknown"

const problemOf = (code: string): FolderProblem => {
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "PermissionDenied"
    case "ENOTDIR":
      return "NotAFolder"
    case "EROFS":
      return "ReadOnly"
    default:
      return "Failed"
  }
}

const refused = (folder: string, at: string, code: string, problem = problemOf(code)) => new FolderNotCreated({ folder, at, problem, code })

type Kind = "folder" | "other" | "missing"

const kindOf = (folder: string, at: string): Effect.Effect<Kind, FolderNotCreated> =>
  Effect.tryPromise({ try: () => Fs.stat(at), catch: codeOf }).pipe(
    Effect.map((stats): Kind => (stats.isDirectory() ? "folder" : "other")),
    Effect.catchAll((code) =>
      code === "ENOENT" || code === "ENOTDIR" ? Effect.succeed<Kind>("missing") : Effect.fail(refused(folder, at, code))
    )
  )

/** The levels of `at` that are missing, outermost first, up to the nearest that exists (which must be a folder). */
const missingLevels = (folder: string, at: string, below: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>, FolderNotCreated> =>
  Effect.flatMap(kindOf(folder, at), (kind) => {
    if (kind === "folder") return Effect.succeed(below)
    if (kind === "other") return Effect.fail(refused(folder, at, "ENOTDIR", "NotAFolder"))
    const parent = Path.dirname(at)
    return parent === at ? Effect.fail(refused(folder, at, "ENOENT", "Failed")) : missingLevels(folder, parent, [at, ...below])
  })

// Under an existing parent mkdir may still answer ENOENT (/proc, a folder removed meanwhile): Node's own
// recursive mkdir then tries the parent again, forever. Here each level is tried once.
const makeLevel = (folder: string, mode: number) => (at: string) =>
  Effect.tryPromise({ try: () => Fs.mkdir(at, { mode }), catch: codeOf }).pipe(
    Effect.catchAll((code) => {
      if (code === "ENOENT") return Effect.fail(refused(folder, at, code, "NotCreatableHere"))
      if (code !== "EEXIST") return Effect.fail(refused(folder, at, code))
      // made meanwhile by another process: fine if it is a folder
      return Effect.flatMap(
        kindOf(folder, at),
        (kind) => kind === "folder" ? Effect.void : Effect.fail(refused(folder, at, "EEXIST", "NotAFolder"))
      )
    })
  )

/**
 * Makes `folder` and its missing parents, each with `mode` (less the umask); one that exists is left as it is.
 * Fails promptly with FolderNotCreated, naming the folder and what stood in the way.
 */
export const makeFolder = Effect.fn("Folders.make")(function* (folder: string, mode: number) {
  const absolute = Path.resolve(folder)
  const missing = yield* missingLevels(absolute, absolute, [])
  yield* Effect.forEach(missing, makeLevel(absolute, mode), { discard: true })
})
