import { Command, type CommandExecutor, HttpClient, HttpClientRequest } from "@effect/platform"
import { Data, Duration, Effect, Ref, Schedule, Stream } from "effect"
import * as Net from "node:net"
import { fileURLToPath } from "node:url"

export class ChildFailed extends Data.TaggedError("ChildFailed")<{ readonly name: string; readonly message: string }> {}

export interface Child {
  readonly name: string
  readonly process: CommandExecutor.Process
  /** The last lines the child wrote, for the report when it misbehaves. */
  readonly output: Effect.Effect<string>
}

export interface NodeScript {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  readonly nodeFlags?: ReadonlyArray<string>
  /** false runs plain JavaScript (the built program) instead of TypeScript under tsx */
  readonly tsx?: boolean
}

const root = fileURLToPath(new URL("../../", import.meta.url))

const command = (script: NodeScript) =>
  Command.make(process.execPath, ...(script.nodeFlags ?? []), ...(script.tsx === false ? [] : ["--import", "tsx"]), ...script.args).pipe(
    Command.env(script.env ?? {}),
    Command.workingDirectory(root)
  )

const collect = (stream: Stream.Stream<Uint8Array, unknown>, tail: Ref.Ref<ReadonlyArray<string>>) =>
  stream.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.runForEach((line) => Ref.update(tail, (lines) => [...lines.slice(-39), line])),
    Effect.ignore
  )

/** A long-running node script (under tsx unless told otherwise); SIGTERM and a wait for its exit when the scope closes. */
export const spawn = Effect.fn("Bench.spawn")(function* (script: NodeScript) {
  const started = yield* Command.start(command(script))
  const tail = yield* Ref.make<ReadonlyArray<string>>([])
  // A child whose pipes nobody drains blocks on its next write.
  yield* Effect.forkScoped(collect(started.stdout, tail))
  yield* Effect.forkScoped(collect(started.stderr, tail))
  return { name: script.name, process: started, output: Effect.map(Ref.get(tail), (lines) => lines.join("\n")) } satisfies Child
})

/** Runs a node script to completion: its stdout and exit code. */
export const runToEnd = Effect.fn("Bench.runToEnd")(function* (script: NodeScript) {
  const started = yield* Command.start(command(script))
  const [stdout, stderr, exitCode] = yield* Effect.all(
    [
      started.stdout.pipe(Stream.decodeText(), Stream.mkString),
      started.stderr.pipe(Stream.decodeText(), Stream.mkString),
      started.exitCode
    ],
    { concurrency: "unbounded" }
  )
  return { stdout, stderr, exitCode: Number(exitCode) }
}, Effect.scoped)

/** Waits until the child answers HTTP on `url` (any status), or fails with its output if it exits first. */
export const awaitHttp = Effect.fn("Bench.awaitHttp")(function* (child: Child, url: string) {
  const client = yield* HttpClient.HttpClient
  const answers = client.execute(HttpClientRequest.get(url)).pipe(
    Effect.scoped,
    Effect.retry({ schedule: Schedule.spaced(Duration.millis(100)), times: 600 })
  )
  const exited = child.process.exitCode.pipe(
    Effect.zip(child.output),
    Effect.flatMap(([code, output]) =>
      new ChildFailed({ name: child.name, message: `exited with code ${code} before answering on ${url}\n${output}` })
    )
  )
  return yield* Effect.raceFirst(Effect.asVoid(answers), exited).pipe(
    Effect.catchTag("RequestError", (cause) => new ChildFailed({ name: child.name, message: `did not answer on ${url}: ${cause.message}` }))
  )
})

export const freePort = Effect.async<number, ChildFailed>((resume) => {
  const server = Net.createServer()
  server.once("error", (cause) => resume(Effect.fail(new ChildFailed({ name: "port", message: String(cause) }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})
