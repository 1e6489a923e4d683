import { Console, Effect, Layer, Option, Redacted } from "effect"
import { AppLive } from "../../layers/App.ts"
import { SeedDirectoryOnStart } from "../../layers/Directory.ts"
import { DispatcherLive } from "../../layers/Dispatch.ts"
import { SeedMarketOnStart } from "../../layers/Mercado.ts"
import { type Port, PortConfig } from "../../schema/Port.ts"
import { rateLimitSettings } from "../../services/limits/RateLimits.ts"
import { SyncWorker } from "../../services/sync/SyncWorker.ts"
import { Workspaces } from "../../services/workspace/Workspaces.ts"
import { portFree } from "../http/PortUnavailable.ts"
import { HttpServerLive } from "../http/Server.ts"
import { withSettings } from "./Settings.ts"
import { servesUntilStopped } from "./Stopped.ts"

/** What the first start prints once: the key as a line to paste, and a call that uses it. */
export const demoBanner = (key: string, port: number) =>
  [
    "",
    "  Demo API key (shown only now). Paste this line into your shell:",
    "",
    `    export BREIN_API_KEY=${key}`,
    "",
    "  then try a tool:",
    "",
    `    curl -s http://localhost:${port}/api/v1/tools/core.timestamp.now/execute \\`,
    `      -H "Authorization: Bearer $BREIN_API_KEY" -H "Content-Type: application/json" \\`,
    `      -d '{"input": {"timezone": "America/Santiago"}}'`,
    "",
    `  Docs: http://localhost:${port}/docs   MCP: http://localhost:${port}/mcp`,
    "  Another key: npx brein keys create --workspace NAME --plan free|paid",
    "",
    ""
  ].join("\n")

/** What the first start logs where no person reads stderr (a supervisor, CI, a file): never the key. */
export const demoHint =
  "first start: created the demo workspace (paid plan); its API key is shown only on a terminal: make one with `brein keys create --workspace demo`"

/** Whether stderr is a person's terminal (the key may be shown) rather than a log a supervisor keeps. */
export const stderrIsTerminal = Effect.sync(() => process.stderr.isTTY === true)

/**
 * The first start (no workspace yet) creates the paid demo workspace. On a terminal it issues its key
 * and shows it once; elsewhere it issues none (a key nobody saw would only be a secret in a log) and
 * says how to make one.
 */
export const announceDemo = (terminal: boolean) =>
  Effect.gen(function* () {
    const workspaces = yield* Workspaces
    if (!terminal) {
      // another process starting at the same time may create it first, and says so itself
      if (Option.isSome(yield* workspaces.createDemo())) yield* Effect.logInfo(demoHint)
      return
    }
    const port = yield* PortConfig
    const demo = yield* workspaces.ensureDemo()
    if (Option.isNone(demo)) return
    const key = Redacted.value(demo.value.key)
    yield* Effect.logInfo("first start: created the demo workspace (paid plan) and its API key; it is shown only now")
    yield* Console.error(demoBanner(key, port))
  })

/** Built before the server, so a shutdown stops the worker once the server has drained, and before the database goes. */
const stopWorkerOnShutdown = Layer.scopedDiscard(Effect.flatMap(SyncWorker, (worker) => Effect.addFinalizer(() => worker.stop)))

export const serve = Layer.mergeAll(HttpServerLive, Layer.effectDiscard(Effect.flatMap(stderrIsTerminal, announceDemo))).pipe(
  Layer.provideMerge(stopWorkerOnShutdown),
  Layer.provideMerge(SeedDirectoryOnStart),
  Layer.provideMerge(DispatcherLive),
  Layer.provideMerge(SeedMarketOnStart)
)

/**
 * Runs the server until interrupted (Ctrl-C, SIGTERM, SIGHUP), which is how it is meant to end (exit 0);
 * a PORT that is no port, a rate limit that is none, or a port in use stops it before anything starts
 * (the database's settings are read before the database).
 */
export const runServe = (flags: { readonly port: Option.Option<Port>; readonly dataDir: Option.Option<string> }) =>
  PortConfig.pipe(
    Effect.zipLeft(rateLimitSettings),
    Effect.flatMap(portFree),
    Effect.zipRight(servesUntilStopped),
    Effect.zipRight(Layer.launch(serve.pipe(Layer.provide(AppLive)))),
    withSettings({ PORT: flags.port, BREIN_DATA_DIR: flags.dataDir })
  )
