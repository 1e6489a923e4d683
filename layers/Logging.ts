import { Config, ConfigError, Effect, Either, FiberRef, Layer, Logger, LogLevel, Option } from "effect"

const byName = new Map(LogLevel.allLevels.flatMap((level) => [[level._tag.toLowerCase(), level], [level.label.toLowerCase(), level]]))

/** LOG_LEVEL as people write it: `Warning` or `WARN`, `debug`, `Info`… (any case). */
export const logLevel = (fallback: LogLevel.LogLevel) =>
  Config.string("LOG_LEVEL").pipe(
    Config.mapOrFail((name) => {
      const level = byName.get(name.trim().toLowerCase())
      return level === undefined
        ? Either.left(ConfigError.InvalidData([], `LOG_LEVEL must be one of Debug, Info, Warning, Error, None (got "${name}")`))
        : Either.right(level)
    }),
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
 * line's `--log-level` asks for another level. That flag (@effect/cli's own) sets the level the command
 * runs at: a level other than the one LoggingLive set is the flag's, and is kept. (`--log-level info`
 * with no LOG_LEVEL cannot be told from no flag: Warning then.)
 */
export const OperatorLogging = Layer.unwrapEffect(Effect.gen(function* () {
  const fromEnv = Option.isSome(yield* Config.option(Config.string("LOG_LEVEL")))
  const set = yield* logLevel(LogLevel.Info)
  const current = yield* FiberRef.get(FiberRef.currentMinimumLogLevel)
  return fromEnv || current.ordinal !== set.ordinal ? Layer.empty : Logger.minimumLogLevel(LogLevel.Warning)
}))
