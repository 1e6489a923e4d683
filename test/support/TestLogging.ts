import { ConfigProvider, Context, Effect, Layer, Logger, LogLevel } from "effect"
import { logLevel } from "../../layers/Logging.ts"

/** Tests log at Warning and above unless LOG_LEVEL says otherwise. */
export const testLogging = (provider: ConfigProvider.ConfigProvider) =>
  Layer.unwrapEffect(
    logLevel(LogLevel.Warning).pipe(
      Effect.map(Logger.minimumLogLevel),
      Effect.withConfigProvider(provider)
    )
  )

/** LOG_LEVEL from the environment, as the program reads it. */
export const TestLogging = testLogging(ConfigProvider.fromEnv())

/** The log lines (logfmt) the services under test wrote, for a test that must prove something was reported. */
export class RecordedLogs
  extends Context.Tag("test/RecordedLogs")<RecordedLogs, { readonly lines: Effect.Effect<ReadonlyArray<string>> }>()
{}

/** Keeps every line logged at or above the minimum level, beside the usual output. */
export const RecordLogs = Layer.unwrapEffect(
  Effect.sync(() => {
    const lines: Array<string> = []
    const recorder = Logger.make((options) => void lines.push(Logger.logfmtLogger.log(options)))
    return Layer.merge(Logger.add(recorder), Layer.succeed(RecordedLogs, { lines: Effect.sync(() => [...lines]) }))
  })
)
