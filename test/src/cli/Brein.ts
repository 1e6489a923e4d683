import { Command, FileSystem } from "@effect/platform"
import { Effect, Redacted, Stream } from "effect"
import * as Net from "node:net"
import * as Path from "node:path"
import { breinCommand } from "../../support/Bin.ts"
import { shelvedRemovedAtEnd } from "../../support/Shelf.ts"

const collect = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

export interface Run {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number
}

const run = (command: Command.Command) =>
  Effect.gen(function* () {
    const child = yield* Command.start(command)
    const [stdout, stderr, exitCode] = yield* Effect.all([collect(child.stdout), collect(child.stderr), child.exitCode], {
      concurrency: "unbounded"
    })
    return { stdout, stderr, exitCode: Number(exitCode) } satisfies Run
  }).pipe(Effect.scoped)

/** `brein ARGS` as a user runs it: its own process, the environment given over the test's own. */
export const runBrein = (env: Readonly<Record<string, string>>, ...args: Array<string>) => run(breinCommand(...args).pipe(Command.env(env)))

/** `brein ARGS` reading `input` on stdin, which then ends (as `</dev/null` or a finished pipe does). */
export const runBreinWithInput = (env: Readonly<Record<string, string>>, input: string, ...args: Array<string>) =>
  run(breinCommand(...args).pipe(Command.env(env), Command.feed(input)))

/** A data folder of its own for one run; an embedded database it made on a shelf (as root) goes with it. */
export const tempDataDir = Effect.gen(function* () {
  const dataDir = yield* (yield* FileSystem.FileSystem).makeTempDirectoryScoped({ prefix: "brein-cli-" })
  yield* shelvedRemovedAtEnd(Path.join(dataDir, "pg"))
  return dataDir
})

export const databaseEnv = (url: Redacted.Redacted<string>, dataDir: string) => ({
  DATABASE_URL: Redacted.value(url),
  BREIN_DATA_DIR: dataDir
})

/**
 * Ports are picked below the range outgoing connections take their source ports from (32768–60999 on Linux):
 * a port the OS picks is in it, and a connection of another test (to PostgreSQL, to a server) could take it
 * between the pick and serve's listen, which then refuses it as in use.
 */
const PORTS = { from: 20_000, to: 32_000 } as const

/** Whether `port` can be listened on, on every address, as serve listens. */
const bindable = (port: number) =>
  Effect.async<boolean>((resume) => {
    const server = Net.createServer()
    server.once("error", () => resume(Effect.succeed(false)))
    server.listen(port, () => server.close(() => resume(Effect.succeed(true))))
  })

/** A port nothing listens on right now, outside the range the OS hands to outgoing connections. */
export const freePort: Effect.Effect<number> = Effect.suspend(() => {
  const port = PORTS.from + Math.floor(Math.random() * (PORTS.to - PORTS.from))
  return Effect.flatMap(bindable(port), (free) => free ? Effect.succeed(port) : freePort)
})
