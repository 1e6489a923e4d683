import { Config, ConfigError, Either } from "effect"

export const DEFAULT_DATA_DIR = ".brein"

/** Why the folder given as `name` is none: an empty path, which would put the database at the filesystem's root. */
export const noDataDir = (name: string) => `${name} must name a folder, not be empty (unset, it is ${DEFAULT_DATA_DIR})`

const isBlank = (text: string) => text.trim() === ""

/** BREIN_DATA_DIR from the configuration (.brein when unset); an empty one fails naming the setting. */
export const DataDirConfig = Config.string("BREIN_DATA_DIR").pipe(
  Config.mapOrFail((text) => isBlank(text) ? Either.left(ConfigError.InvalidData([], noDataDir("BREIN_DATA_DIR"))) : Either.right(text)),
  Config.withDefault(DEFAULT_DATA_DIR)
)

/** Whether a path given on the command line names a folder. */
export const namesAFolder = (text: string) => !isBlank(text)
