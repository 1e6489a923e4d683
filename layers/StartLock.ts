import { Data, Duration, Effect, Schedule } from "effect"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { makeFolder } from "../services/Folders.ts"
import { EmbeddedPostgresFailed, hasCode, isAlive } from "./PostgresProcess.ts"

class LockHeld extends Data.TaggedError("LockHeld") {}

/** Beside the cluster's folder (which initdb wants empty or absent): `pg.start.lock`. */
const startLockOf = (directory: string) => `${directory}.start.lock`

/** The lock files this process holds (its pid alone cannot tell its own from one a dead process left). */
const heldHere = new Set<string>()

/** Takes the lock file, or fails with LockHeld while a live process holds it; one a dead process left is taken over. */
const take = (file: string) =>
  Effect.tryPromise({
    try: async () => {
      if (!heldHere.has(file)) {
        // marked before the file is there, so that no other fiber here takes its pid in it for a dead process's
        heldHere.add(file)
        try {
          await Fs.writeFile(file, `${process.pid}\n`, { flag: "wx", mode: 0o600 })
          return
        } catch (cause) {
          heldHere.delete(file)
          if (!hasCode(cause, "EEXIST")) throw cause
        }
      }
      const holder = Number.parseInt(await Fs.readFile(file, "utf8").catch(() => ""), 10)
      // a file with no pid yet is one being written: held. One naming this process that it does not hold is
      // another's that died before a restart gave this process its pid (a container's first process is pid 1).
      const stale = holder === process.pid ? !heldHere.has(file) : Number.isInteger(holder) && !isAlive(holder)
      if (!stale) throw new LockHeld()
      await Fs.rm(file, { force: true })
      throw new LockHeld()
    },
    catch: (cause) => cause instanceof LockHeld ? cause : new EmbeddedPostgresFailed({ message: `cannot take ${file}`, cause })
  })

/**
 * Runs `effect` (initialising and starting a cluster) while this process alone holds the cluster's start
 * lock, so that two brein processes starting on a new data folder at once do not both run initdb into it
 * (one failed with PostgreSQL's own words: `directory … exists but is not empty`). The other waits, then
 * finds the cluster running. A lock left by a process that died is taken over.
 */
export const withStartLock = <A, E, R>(directory: string, effect: Effect.Effect<A, E, R>) => {
  const file = startLockOf(directory)
  return Effect.acquireUseRelease(
    makeFolder(Path.dirname(file), 0o700).pipe(
      Effect.zipRight(take(file)),
      Effect.retry({ while: (error) => error._tag === "LockHeld", schedule: Schedule.spaced(Duration.millis(100)), times: 900 }),
      Effect.catchTag(
        "LockHeld",
        () => new EmbeddedPostgresFailed({ message: `another process held ${file} for 90 s: if none is starting brein, remove it` })
      )
    ),
    () => effect,
    () => Effect.promise(() => Fs.rm(file, { force: true }).finally(() => heldHere.delete(file)))
  ).pipe(Effect.withSpan("EmbeddedPostgres.startLock", { attributes: { directory } }))
}
