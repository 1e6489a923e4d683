import { Effect, Option, Schema } from "effect"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { randomToken, sha256 } from "../services/Crypto.ts"
import { makeFolder } from "../services/Folders.ts"
import { type Binaries, canExecute, EmbeddedPostgresFailed, hasCode, initdbOf, postgresUser, type RunAs } from "./PostgresProcess.ts"

/** Where the server runs from: its binaries, its data folder, and the user it runs as (root only). */
export interface Placement {
  readonly binaries: Binaries
  readonly directory: string
  readonly runAs: Option.Option<RunAs>
}

export const digest = (text: string) => sha256(text).slice(0, 16)

/** Folders every user may enter; the first one root can write to holds what the postgres user must reach. */
export const shelves = ["/var/lib/brein", Path.join(Os.tmpdir(), "brein-postgres")]

const shelf = Effect.firstSuccessOf(
  shelves.map((folder) =>
    makeFolder(folder, 0o755).pipe(Effect.zipRight(Effect.tryPromise(() => Fs.chmod(folder, 0o755))), Effect.as(folder))
  )
).pipe(Effect.mapError(() => new EmbeddedPostgresFailed({ message: `cannot create any of ${shelves.join(", ")}` })))

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

/** Kept in the data folder asked for: where its database was put. A data folder made anew has none, so it gets a new database. */
const MARKER = "relocated.json"
const Relocation = Schema.parseJson(Schema.Struct({ directory: Schema.NonEmptyTrimmedString }))
const decodeRelocation = Schema.decodeUnknown(Relocation)
const encodeRelocation = Schema.encodeSync(Relocation)

const unreadableMarker = (marker: string, cause: unknown) =>
  new EmbeddedPostgresFailed({
    message: `${marker} does not say where this data folder's database is: restore it, or remove it to start with a new database`,
    cause
  })

/** A database folder brein makes on a shelf: `<shelf>/data-<digest>[-<token>]/pg`, written as made. */
const SHELVED = /^data-[0-9a-f]{16}(-[0-9a-f]+)?$/
const isShelved = (relocated: string) =>
  Path.isAbsolute(relocated) && Path.normalize(relocated) === relocated && Path.basename(relocated) === "pg" &&
  SHELVED.test(Path.basename(Path.dirname(relocated))) && shelves.includes(Path.dirname(Path.dirname(relocated)))

/**
 * A marker that names any other folder was not written by brein: as root brein would hand that folder to the
 * postgres user and make a database in it, so a marker planted in a data folder could take any directory.
 */
const foreignMarker = (marker: string, relocated: string) =>
  new EmbeddedPostgresFailed({
    message: `${marker} names ${JSON.stringify(relocated)}, which is no database folder brein makes (only ${
      shelves.map((shelf) => `${shelf}/data-…/pg`).join(" or ")
    }): nothing was done with it; restore the marker brein wrote, or remove it to start with a new database`
  })

/** A data folder whose path the system cannot follow: said as such, not as a marker to restore. */
const unusablePath = (directory: string, cause: unknown) =>
  new EmbeddedPostgresFailed({
    message: `the data folder ${Path.dirname(directory)} cannot be used: ${
      hasCode(cause, "ELOOP") ? "its path loops through symbolic links" : "its path, or a name in it, is too long"
    }; give --data-dir (or BREIN_DATA_DIR) another folder`,
    cause
  })

/** The database's folder as this data folder's marker records it, if it has one: only ever one on a shelf. */
const recorded = Effect.fn("PostgresPlacement.recorded")(function* (directory: string) {
  const marker = Path.join(directory, MARKER)
  const text = yield* Effect.tryPromise(() => Fs.readFile(marker, "utf8")).pipe(
    Effect.map(Option.some),
    Effect.catchAll((error) =>
      hasCode(error.error, "ENOENT") || hasCode(error.error, "ENOTDIR")
        ? Effect.succeedNone
        : hasCode(error.error, "ENAMETOOLONG") || hasCode(error.error, "ELOOP")
        ? Effect.fail(unusablePath(directory, error.error))
        : Effect.fail(unreadableMarker(marker, error.error))
    )
  )
  if (Option.isNone(text)) return Option.none<string>()
  const relocation = yield* decodeRelocation(text.value).pipe(Effect.mapError((cause) => unreadableMarker(marker, cause)))
  if (!isShelved(relocation.directory)) return yield* foreignMarker(marker, relocation.directory)
  return Option.some(relocation.directory)
})

/** Writes the marker unless another start wrote one first; answers the folder the marker names. */
const record = Effect.fn("PostgresPlacement.record")(function* (directory: string, relocated: string) {
  const marker = Path.join(directory, MARKER)
  yield* makeFolder(directory, 0o700)
  const written = yield* Effect.tryPromise(() =>
    Fs.writeFile(marker, encodeRelocation({ directory: relocated }), { flag: "wx", mode: 0o600 })
  ).pipe(
    Effect.as(true),
    Effect.catchAll((error) =>
      hasCode(error.error, "EEXIST")
        ? Effect.succeed(false)
        : Effect.fail(new EmbeddedPostgresFailed({ message: `cannot write ${marker}`, cause: error.error }))
    )
  )
  if (written) return relocated
  return yield* Effect.flatMap(
    recorded(directory),
    Option.match({ onNone: () => Effect.fail(unreadableMarker(marker, "removed meanwhile")), onSome: Effect.succeed })
  )
})

/** The databases on the shelf made for the same path as `name` (a data folder since deleted); the caller says they are left. */
const leftBehind = Effect.fn("PostgresPlacement.leftBehind")(function* (folder: string, name: string) {
  const entries = yield* Effect.promise(() => Fs.readdir(folder).catch(() => []))
  const candidates = entries.filter((entry) => entry === name || entry.startsWith(`${name}-`)).map((entry) =>
    Path.join(folder, entry, "pg")
  )
  return yield* Effect.filter(candidates, (candidate) => exists(Path.join(candidate, "PG_VERSION")))
})

/**
 * A new folder on the shelf for a data folder without a marker. Before markers a data folder's database
 * was `data-<digest of its path>`; a data folder that was there before this start (it was not deleted)
 * keeps that one. Otherwise the database is new, and any left by an earlier data folder of the same path
 * is named in the log (its keys went with that folder: nothing here can use it).
 */
const relocate = Effect.fn("PostgresPlacement.relocate")(function* (folder: string, directory: string, dataFolderExisted: boolean) {
  const name = `data-${digest(directory)}`
  const legacy = Path.join(folder, name, "pg")
  if (dataFolderExisted && (yield* exists(Path.join(legacy, "PG_VERSION")))) return yield* record(directory, legacy)
  const left = yield* leftBehind(folder, name)
  yield* Effect.forEach(
    left,
    (database) =>
      Effect.logWarning("a database made for an earlier data folder at this path is left on the shelf: remove it to free its space").pipe(
        Effect.annotateLogs({ asked: directory, left: database })
      )
  )
  // The database's own folder exists before the marker names it: a marker that names a missing folder means the database is gone.
  const own = Path.join(folder, `${name}-${randomToken(6, "hex")}`)
  yield* Effect.tryPromise(() => Fs.mkdir(own, { mode: 0o755 })).pipe(
    Effect.mapError((cause) => new EmbeddedPostgresFailed({ message: `cannot create ${own}`, cause }))
  )
  const relocated = yield* record(directory, Path.join(own, "pg"))
  // another start wrote the marker first: its database is the one
  if (relocated !== Path.join(own, "pg")) yield* Effect.promise(() => Fs.rm(own, { recursive: true, force: true }))
  return relocated
})

/**
 * The database the marker names, if it is there. Its folder on the shelf is made before the marker is
 * written, so a missing one was removed since (a shelf wiped, a container made anew without it): starting
 * a new, empty database in its place would silently pair this data folder's keys with nothing.
 */
const stillThere = Effect.fn("PostgresPlacement.stillThere")(function* (directory: string, relocated: string) {
  if (yield* exists(Path.dirname(relocated))) return relocated
  return yield* new EmbeddedPostgresFailed({
    message: `${Path.join(directory, MARKER)} says this data folder's database is kept in ${relocated}, and it is gone: ` +
      `restore it there (from a backup, or the volume that held it), or delete the data folder ${
        Path.dirname(directory)
      } to start over with a new database`
  })
})

/** A database made by root's runs, kept on the shelf: another user can neither run it nor should start a new one beside its keys. */
const keptByRoot = (directory: string, relocated: string) =>
  new EmbeddedPostgresFailed({
    message: `${Path.join(directory, MARKER)} says this data folder's database is kept in ${relocated} by brein run as root: ` +
      `run brein as root with this data folder, or give it another --data-dir (or BREIN_DATA_DIR) to start with a new database`
  })

/**
 * A database already in the data folder (made by a run as another user, or a data folder moved or restored
 * into a private directory) that the postgres user cannot reach: a new, empty one on the shelf would hide it.
 */
const unreachableDatabase = (directory: string) =>
  new EmbeddedPostgresFailed({
    message: `${directory} holds a database the postgres user cannot reach (as root, brein runs PostgreSQL as postgres): ` +
      `run brein as the user that owns it, or move the data folder ${
        Path.dirname(directory)
      } out of the private directory and give it to postgres (chown -R postgres), or set DATABASE_URL`
  })

/**
 * PostgreSQL refuses to run as root, so as root it runs as the postgres user, which cannot enter a
 * private folder (root's home is 0700). Whatever that user cannot reach (the binaries inside
 * node_modules, the data folder) is kept on a shelf it can reach instead: the binaries as a copy,
 * the data in a folder of its own, named by a marker the data folder keeps (`pg/relocated.json`): every
 * run finds the same one, and a data folder deleted and made again starts with a new database.
 */
export const place = Effect.fn("PostgresPlacement.place")(function* (
  shipped: Binaries,
  directory: string,
  asRoot: boolean = process.getuid?.() === 0
) {
  const marked = yield* recorded(directory)
  if (!asRoot) {
    if (Option.isSome(marked)) return yield* keptByRoot(directory, marked.value)
    return { binaries: shipped, directory, runAs: Option.none() } satisfies Placement
  }
  const runAs = yield* postgresUser
  const dataFolderExisted = yield* exists(Path.dirname(directory))
  // The data folder holds secrets and is created private (0700): judge what it will be, not a parent that exists now.
  yield* makeFolder(Path.dirname(directory), 0o700)
  const binariesReachable = yield* canExecute(initdbOf(shipped), runAs)
  const dataReachable = Option.isNone(marked) &&
    (yield* Effect.flatMap(nearestExisting(directory), (nearest) => canExecute(nearest, runAs)))
  if (binariesReachable && dataReachable) return { binaries: shipped, directory, runAs: Option.some(runAs) } satisfies Placement

  const folder = yield* shelf
  const binaries = binariesReachable ? shipped : yield* copyBinaries(shipped, folder)
  if (!(yield* canExecute(initdbOf(binaries), runAs))) return yield* cannotReach(binaries.root)
  if (dataReachable) return { binaries, directory, runAs: Option.some(runAs) } satisfies Placement
  if (Option.isNone(marked) && (yield* exists(Path.join(directory, "PG_VERSION")))) return yield* unreachableDatabase(directory)
  const relocated = Option.isSome(marked)
    ? yield* stillThere(directory, marked.value)
    : yield* relocate(folder, directory, dataFolderExisted)
  yield* Effect.logInfo("the postgres user cannot reach the data folder: the database is kept where it can").pipe(
    Effect.annotateLogs({ asked: directory, directory: relocated })
  )
  yield* makeFolder(Path.dirname(relocated), 0o755).pipe(Effect.mapError(() => cannotReach(directory)))
  return { binaries, directory: relocated, runAs: Option.some(runAs) } satisfies Placement
})
