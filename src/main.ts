import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { LoggingLive } from "../layers/Logging.ts"
import { TracingLive } from "../layers/Tracing.ts"
import { anchors } from "./cli/Anchors.ts"
import { audit } from "./cli/Audit.ts"
import { benchCommand } from "./cli/Bench.ts"
import { stoppedByBrokenPipe } from "./cli/BrokenPipe.ts"
import { checkCommandLine } from "./cli/CommandLine.ts"
import { connections } from "./cli/Connections.ts"
import { credits } from "./cli/Credits.ts"
import { db } from "./cli/Db.ts"
import { reportFailure } from "./cli/Failure.ts"
import { stoppedByHangup } from "./cli/Hangup.ts"
import { keys } from "./cli/Keys.ts"
import { logLevelFlag } from "./cli/LogLevelFlag.ts"
import { mailboxes, suppressions } from "./cli/Mailboxes.ts"
import { mcp } from "./cli/Mcp.ts"
import { plainWhenPiped } from "./cli/PlainOutput.ts"
import { seedCommand } from "./cli/Seed.ts"
import { runServe, serveCommand, serveOptions } from "./cli/Serve.ts"
import { recordingSignals, teardown } from "./cli/Stopped.ts"
import { users } from "./cli/Users.ts"
import { packageVersion } from "./cli/Version.ts"
import { WizardTerminal } from "./cli/WizardTerminal.ts"
import { workspaces } from "./cli/Workspaces.ts"

const commands = [
  serveCommand,
  mcp,
  keys,
  workspaces,
  connections,
  credits,
  seedCommand,
  db,
  audit,
  users,
  mailboxes,
  suppressions,
  anchors,
  benchCommand
] as const

const root = Command.make("brein", serveOptions, runServe).pipe(
  Command.withDescription("A registry of tools served over HTTP and MCP. Without a command: serve.")
)
const brein = root.pipe(Command.withSubcommands(commands))

const logLevel = logLevelFlag(process.argv)

Effect.flatMap(
  packageVersion,
  (version) =>
    logLevel.run((argv) =>
      Effect.zipRight(checkCommandLine(brein, root, commands, argv.slice(2)), Command.run(brein, { name: "brein", version })(argv))
    )
).pipe(
  stoppedByHangup,
  stoppedByBrokenPipe,
  recordingSignals,
  Effect.provide(WizardTerminal),
  Effect.provide(NodeContext.layer),
  // inside the logging: the exporter's own logs go to stderr too
  Effect.provide(TracingLive),
  Effect.provide(LoggingLive),
  logLevel.settings,
  Effect.catchAllCause(reportFailure),
  plainWhenPiped,
  NodeRuntime.runMain({ disablePrettyLogger: true, teardown })
)
