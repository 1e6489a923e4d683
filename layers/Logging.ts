import { Config, ConfigError, Effect, Either, Layer, Logger, LogLevel, Option } from "effect"

const byName = new Map(LogLevel.allLevels.flatMap((level) => [[level._tag.toLowerCase(), level], [level.label.toLowerCase(), level]]))

/** A level as people write it (LOG_LEVEL, --log-level): `Warning` or `WARN`, `debug`, `Info`… (any case). */
export const levelNamed = (name: string) => Option.fromNullable(byName.get(name.trim().toLowerCase()))

export const logLevel = (fallback: LogLevel.LogLevel) =>
  Config.string("LOG_LEVEL").pipe(
    Config.mapOrFail((name) =>
      Either.fromOption(
        levelNamed(name),
        () => ConfigError.InvalidData([], `LOG_LEVEL must be one of Debug, Info, Warning, Error, None (got "${name}")`)
      )
    ),
    Config.withDefault(fallback)
  )

/** Logs go to stderr: stdout belongs to MCP stdio and to commands whose output scripts capture. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.map(logLevel(LogLevel.Info), (level) =>
    Layer.merge(
      Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
      Logger.minimumLogLevel(level)
    ))
)

/**
 * Operator commands answer on stdout; their own logs stay at Warning unless `LOG_LEVEL` or the command
 * line's `--log-level` (which main.ts gives as LOG_LEVEL) asks for another level.
 */
export const OperatorLogging = Layer.unwrapEffect(
  Effect.map(
    Config.option(Config.string("LOG_LEVEL")),
    (fromEnv) => Option.isSome(fromEnv) ? Layer.empty : Logger.minimumLogLevel(LogLevel.Warning)
  )
)
