import { Config, Effect, Layer, Logger, LogLevel } from "effect"

/** Logs go to stderr: stdout belongs to MCP stdio and to commands whose output scripts capture. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.map(Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info)), (level) =>
    Layer.merge(
      Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
      Logger.minimumLogLevel(level)
    )
  )
)
