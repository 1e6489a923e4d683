import { Command } from "@effect/cli"
import { Config, Console, Context, Data, Effect, Layer, Redacted } from "effect"
import { AppLive } from "../../layers/App.ts"
import type { Executor } from "../../services/pipeline/Executor.ts"
import type { Registry } from "../../services/tools/Registry.ts"
import { KEY_PREFIX, Workspaces } from "../../services/workspace/Workspaces.ts"
import { serveMcpStdio } from "../mcp/Stdio.ts"
import { exitWith } from "./Failure.ts"
import { database, withSettings } from "./Settings.ts"
import { stdinEnded } from "./StdinEnded.ts"

class McpKeyRejected extends Data.TaggedError("McpKeyRejected")<{ readonly message: string }> {}

export class StdioApiKey extends Context.Tag("brein/cli/StdioApiKey")<StdioApiKey, Redacted.Redacted<string>>() {
  static readonly Live = Layer.effect(
    StdioApiKey,
    Config.redacted("BREIN_API_KEY").pipe(
      Effect.filterOrFail((key) => Redacted.value(key).trim() !== ""),
      Effect.mapError(() =>
        new McpKeyRejected({
          message: `BREIN_API_KEY is not set: create a key with \`brein keys create\` and put it (${KEY_PREFIX}…) in the environment`
        })
      )
    )
  )
}

const serveOverStdio = Effect.gen(function* () {
  const key = yield* StdioApiKey
  const principal = yield* (yield* Workspaces).authenticate(Redacted.value(key)).pipe(
    Effect.mapError(() => new McpKeyRejected({ message: "BREIN_API_KEY was not accepted: the key is unknown or revoked" }))
  )
  yield* serveMcpStdio(principal)
  yield* Effect.logInfo("serving MCP over stdio").pipe(Effect.annotateLogs({ workspace: principal.workspaceName }))
  // the stdio transport ends the connection when stdin ends; the process follows it
  yield* stdinEnded
}).pipe(Effect.scoped)

/** `brein mcp`: MCP over stdio for the workspace of BREIN_API_KEY. stdout is the wire; logs go to stderr. */
export const mcpStdio = <E>(app: Layer.Layer<Registry | Executor | Workspaces, E>) =>
  serveOverStdio.pipe(
    Effect.provide(app),
    Effect.provide(StdioApiKey.Live),
    Effect.as(0),
    Effect.catchIf((error) => error instanceof McpKeyRejected, (error) => Console.error(error.message).pipe(Effect.as(1)))
  )

export const mcp = Command.make(
  "mcp",
  database,
  (options) => mcpStdio(AppLive).pipe(withSettings({ BREIN_DATA_DIR: options.dataDir }), Effect.flatMap(exitWith))
).pipe(
  Command.withDescription("MCP over stdio for the workspace of BREIN_API_KEY (stdout is the wire, logs go to stderr)")
)
