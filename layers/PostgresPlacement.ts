import { Effect, Option } from "effect"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { randomToken, sha256 } from "../services/Crypto.ts"
import { type Binaries, canExecute, EmbeddedPostgresFailed, initdbOf, postgresUser, type RunAs } from "./PostgresProcess.ts"

/** Where the server runs from: its binaries, its data folder, and the user it runs as (root only). */
export interface Placement {
  readonly binaries: Binaries
  readonly directory: string
  readonly runAs: Option.Option<RunAs>
}

const digest = (text: string) => sha256(text).slice(0, 16)

// Folders every user may enter; the first one root can write to holds what the postgres user must reach.
const shelves = ["/var/lib/brein", Path.join(Os.tmpdir(), "brein-postgres")]

const shelf = Effect.firstSuccessOf(shelves.map((folder) =>
  Effect.tryPromise(async () => {
    await Fs.mkdir(folder, { recursive: true, mode: 0o755 })
    await Fs.chmod(folder, 0o755)
    return folder
  })
)).pipe(Effect.mapError(() => new EmbeddedPostgresFailed({ message: `cannot create any of ${shelves.join(", ")}` })))

const exists = (path: string) => Effect.promise(() => Fs.access(path).then(() => true, () => false))

/** A copy of the binaries on the shelf, made once per build (copied aside, then renamed into place). */
const copyBinaries = Effect.fn("PostgresPlacement.copyBinaries")(function* (shipped: Binaries, folder: string) {
  const target = Path.join(folder, `postgres-${digest(shipped.root)}`)
  if (yield* exists(Path.join(target, ".complete"))) return { root: target } satisfies Binaries
  const staging = `${target}.${randomToken(4, "hex")}`
  yield* Effect.tryPromise(async () => {
    await Fs.cp(shipped.root, staging, { recursive: true, verbatimSymlinks: true })
    await Fs.chmod(staging, 0o755)
    await Fs.writeFile(Path.join(staging, ".complete"), "")
    await Fs.rename(staging, target).catch(() => Fs.rm(staging, { recursive: true, force: true }))
  }).pipe(Effect.mapError((cause) => new EmbeddedPostgresFailed({ message: `cannot copy the PostgreSQL binaries to ${target}`, cause })))
  yield* Effect.logInfo("copied the PostgreSQL binaries where the postgres user can run them").pipe(Effect.annotateLogs({ target }))
  return { root: target } satisfies Binaries
})

const nearestExisting = (path: string): Effect.Effect<string> =>
  Effect.flatMap(exists(path), (found) => found || Path.dirname(path) === path ? Effect.succeed(path) : nearestExisting(Path.dirname(path)))

const cannotReach = (what: string) =>
  new EmbeddedPostgresFailed({
    message:
      `PostgreSQL will not run as root and its postgres user cannot reach ${what}: run brein as another user, or set DATABASE_URL to a PostgreSQL server`
  })

/**
 * PostgreSQL refuses to run as root, so as root it runs as the postgres user, which cannot enter a
 * private folder (root's home is 0700). Whatever that user cannot reach (the binaries inside
 * node_modules, the data folder) is kept on a shelf it can reach instead: the binaries as a copy,
 * the data in a folder named after the data folder asked for, so every run finds the same one.
 */
export const place = Effect.fn("PostgresPlacement.place")(function* (shipped: Binaries, directory: string) {
  if (process.getuid?.() !== 0) return { binaries: shipped, directory, runAs: Option.none() } satisfies Placement
  const runAs = yield* postgresUser
  // The data folder holds secrets and is created private (0700): judge what it will be, not a parent that exists now.
  yield* Effect.tryPromise(() => Fs.mkdir(Path.dirname(directory), { recursive: true, mode: 0o700 })).pipe(Effect.ignore)
  const binariesReachable = yield* canExecute(initdbOf(shipped), runAs)
  const dataReachable = yield* Effect.flatMap(nearestExisting(directory), (nearest) => canExecute(nearest, runAs))
  if (binariesReachable && dataReachable) return { binaries: shipped, directory, runAs: Option.some(runAs) } satisfies Placement

  const folder = yield* shelf
  const binaries = binariesReachable ? shipped : yield* copyBinaries(shipped, folder)
  if (!(yield* canExecute(initdbOf(binaries), runAs))) return yield* cannotReach(binaries.root)
  const relocated = dataReachable ? directory : Path.join(folder, `data-${digest(directory)}`, "pg")
  if (!dataReachable) {
    yield* Effect.logInfo("the postgres user cannot reach the data folder: the database is kept where it can").pipe(
      Effect.annotateLogs({ asked: directory, directory: relocated })
    )
    yield* Effect.tryPromise(() => Fs.mkdir(Path.dirname(relocated), { recursive: true, mode: 0o755 })).pipe(
      Effect.mapError(() => cannotReach(directory))
    )
  }
  return { binaries, directory: relocated, runAs: Option.some(runAs) } satisfies Placement
})
