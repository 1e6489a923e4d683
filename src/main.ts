import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { LoggingLive } from "../layers/Logging.ts"
import { TracingLive } from "../layers/Tracing.ts"
import { stoppedByBrokenPipe } from "./cli/BrokenPipe.ts"
import { checkCommandLine } from "./cli/CommandLine.ts"
import { reportFailure } from "./cli/Failure.ts"
import { stoppedByHangup } from "./cli/Hangup.ts"
import { helpInOwnWords } from "./cli/HelpPage.ts"
import { logLevelFlag } from "./cli/LogLevelFlag.ts"
import { plainWhenPiped } from "./cli/PlainOutput.ts"
import { brein, commands, root } from "./cli/Program.ts"
import { recordingSignals, teardown } from "./cli/Stopped.ts"
import { packageVersion } from "./cli/Version.ts"
import { WizardTerminal } from "./cli/WizardTerminal.ts"

const logLevel = logLevelFlag(process.argv)

Effect.flatMap(
  packageVersion,
  (version) =>
    logLevel.run((argv) =>
      Effect.zipRight(
        checkCommandLine(brein, root, commands, argv.slice(2)),
        Command.run(brein, { name: "brein", version })(argv).pipe(
          helpInOwnWords({ name: "brein", version, program: brein, commands }, argv.slice(2))
        )
      )
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
