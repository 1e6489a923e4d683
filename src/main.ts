import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { AppLive } from "../layers/App.ts"
import { LoggingLive } from "../layers/Logging.ts"
import { parseArgs, USAGE, UsageError } from "./cli/Args.ts"
import { auditVerify } from "./cli/Audit.ts"
import { keysCreate } from "./cli/Keys.ts"
import { mcpStdio } from "./cli/Mcp.ts"
import { serve } from "./cli/Serve.ts"

const { command, flags } = parseArgs(process.argv.slice(2))

const exitWith = (code: number) => Effect.sync(() => void (process.exitCode = code))

const program = Effect.gen(function* () {
  switch (command.join(" ")) {
    case "":
    case "serve":
      return yield* Layer.launch(serve.pipe(Layer.provide(AppLive)))
    case "mcp":
      return yield* mcpStdio(AppLive).pipe(Effect.flatMap(exitWith))
    case "keys create":
      return yield* keysCreate(flags).pipe(Effect.provide(AppLive))
    case "audit verify":
      return yield* auditVerify.pipe(Effect.provide(AppLive), Effect.flatMap(exitWith))
    case "help":
      return yield* Console.log(USAGE)
    default:
      return yield* new UsageError({ message: `unknown command "${command.join(" ")}"` })
  }
}).pipe(
  Effect.catchTag("UsageError", (e) => Console.error(`${e.message}\n\n${USAGE}`).pipe(Effect.zipRight(exitWith(2))))
)

program.pipe(Effect.provide(LoggingLive), NodeRuntime.runMain({ disablePrettyLogger: true }))
