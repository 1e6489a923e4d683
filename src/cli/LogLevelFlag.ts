import { Effect, LogLevel, Option } from "effect"
import { levelNamed } from "../../layers/Logging.ts"
import { CommandFailed } from "./Failure.ts"
import { withSettings } from "./Settings.ts"

const FLAG = "--log-level"
const LEVELS = LogLevel.allLevels.map((level) => level._tag.toLowerCase())

/** The command line without its `--log-level`, and the level it named (the last one, if given twice). */
interface Split {
  readonly argv: ReadonlyArray<string>
  readonly level: Option.Option<string>
}

/**
 * `--log-level LEVEL` (or `--log-level=LEVEL`) read wherever it is written, up to `--`. @effect/cli reads
 * its own flag only before a nested command's options (`brein keys create --workspace acme --log-level
 * debug` was refused as an unknown argument), and a level equal to the default could not be told from no
 * flag at all (`--log-level info` left an operator command at Warning). A flag without its value stays
 * where it is, and the command line is refused as before.
 */
const split = (argv: ReadonlyArray<string>): Split => {
  const end = argv.indexOf("--")
  const options = end < 0 ? argv : argv.slice(0, end)
  const kept: Array<string> = []
  let level = Option.none<string>()
  for (let i = 0; i < options.length; i++) {
    const arg = options[i] ?? ""
    const next = options[i + 1]
    if (arg === FLAG && next !== undefined && i >= 2) {
      level = Option.some(next)
      i++
    } else if (arg.startsWith(`${FLAG}=`) && i >= 2) {
      level = Option.some(arg.slice(FLAG.length + 1))
    } else {
      kept.push(arg)
    }
  }
  return { argv: end < 0 ? kept : [...kept, ...argv.slice(end)], level }
}

/**
 * The command line's `--log-level`: `run` runs the command line without it (a level it does not know is a
 * wrong command line, exit 2), and `settings` gives its level as LOG_LEVEL (the flag wins over it) to what
 * it wraps, which must include the logging layers.
 */
export const logLevelFlag = (argv: ReadonlyArray<string>) => {
  const { argv: rest, level } = split(argv)
  const given = Option.map(level, (text) => text.toLowerCase())
  // read as LOG_LEVEL is read: one rule for the names of levels
  const known = Option.filter(given, (name) => Option.isSome(levelNamed(name)))
  return {
    run: <A, E, R>(run: (argv: ReadonlyArray<string>) => Effect.Effect<A, E, R>): Effect.Effect<A, E | CommandFailed, R> =>
      Option.isSome(given) && Option.isNone(known)
        ? Effect.fail(
          new CommandFailed({ message: `${FLAG} must be one of ${LEVELS.join(", ")}, got ${JSON.stringify(given.value)}`, exitCode: 2 })
        )
        : run(rest),
    settings: withSettings({ LOG_LEVEL: known })
  }
}
