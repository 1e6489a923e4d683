import { Config, Context, Effect, Layer, type Option, Redacted } from "effect"
import { AppLive } from "../../layers/App.ts"
import { Unauthorized } from "../../schema/Errors.ts"
import type { Executor } from "../../services/pipeline/Executor.ts"
import type { Registry } from "../../services/tools/Registry.ts"
import { KEY_PREFIX, Workspaces } from "../../services/workspace/Workspaces.ts"
import { serveMcpStdio } from "../mcp/Stdio.ts"
import { CommandFailed } from "./Failure.ts"
import { withSettings } from "./Settings.ts"
import { stdinEnded } from "./StdinEnded.ts"
import { servesUntilStopped } from "./Stopped.ts"

const keyRejected = (message: string) => new CommandFailed({ message, exitCode: 1 })

const revoked = new Unauthorized({
  message: "BREIN_API_KEY is no longer accepted (revoked, or unknown): no call is served; " +
    "start brein mcp again with a key from `brein keys create`"
})

export class StdioApiKey extends Context.Tag("brein/cli/StdioApiKey")<StdioApiKey, Redacted.Redacted<string>>() {
  static readonly Live = Layer.effect(
    StdioApiKey,
    Config.redacted("BREIN_API_KEY").pipe(
      Effect.filterOrFail((key) => Redacted.value(key).trim() !== ""),
      Effect.mapError(() =>
        keyRejected(`BREIN_API_KEY is not set: create a key with \`brein keys create\` and put it (${KEY_PREFIX}…) in the environment`)
      )
    )
  )
}

const serveOverStdio = Effect.gen(function* () {
  yield* servesUntilStopped
  const key = yield* StdioApiKey
  const workspaces = yield* Workspaces
  const principal = yield* workspaces.authenticate(Redacted.value(key)).pipe(
    Effect.mapError(() => keyRejected("BREIN_API_KEY was not accepted: the key is unknown or revoked"))
  )
  // checked again before each call (from the keys' cache, which a revocation anywhere clears): revoked, it is refused
  const current = workspaces.authenticate(Redacted.value(key)).pipe(Effect.mapError(() => revoked))
  yield* serveMcpStdio(principal, { current })
  yield* Effect.logInfo("serving MCP over stdio").pipe(Effect.annotateLogs({ workspace: principal.workspaceName }))
  // the stdio transport ends the connection when stdin ends; the process follows it
  yield* stdinEnded
}).pipe(Effect.scoped)

/**
 * `brein mcp`: MCP over stdio for the workspace of BREIN_API_KEY. stdout is the wire; logs go to stderr; a key
 * that is missing or refused ends it as every command fails (`brein: …`, exit 1).
 */
export const mcpStdio = <E>(app: Layer.Layer<Registry | Executor | Workspaces, E>) =>
  serveOverStdio.pipe(Effect.provide(app), Effect.provide(StdioApiKey.Live))

/** `brein mcp` with the whole program behind it. */
export const runMcp = (options: { readonly dataDir: Option.Option<string> }) =>
  mcpStdio(AppLive).pipe(withSettings({ BREIN_DATA_DIR: options.dataDir }))
