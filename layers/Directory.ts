import { Config, Effect, Layer, Option } from "effect"
import { Directory } from "../services/catalog/empresas/Directory.ts"
import { DirectorySeed } from "../services/catalog/empresas/DirectorySeed.ts"
import { Lists } from "../services/catalog/empresas/Lists.ts"
import { DatabaseLive } from "./Database.ts"

/** The directory the empresas tools read, the workspaces' lists, and its loader. Needs SqlClient. */
export const DirectoryLive = Layer.mergeAll(Directory.Default, Lists.Default, DirectorySeed.Default)

/**
 * Whether a start loads the default directory into an empty database: BREIN_SEED_DIRECTORY when set,
 * otherwise only on the embedded database (no DATABASE_URL), the zero-setup first start.
 */
export const seedOnStart = Effect.gen(function* () {
  const explicit = yield* Config.option(Config.boolean("BREIN_SEED_DIRECTORY"))
  if (Option.isSome(explicit)) return explicit.value
  const url = yield* Config.option(Config.string("DATABASE_URL"))
  return Option.isNone(url) || url.value === ""
})

/** The first start on an empty directory loads the default one (20,000 companies) before serving. */
export const SeedDirectoryOnStart = Layer.effectDiscard(Effect.gen(function* () {
  if (!(yield* seedOnStart)) return
  const seeded = yield* (yield* DirectorySeed).loadIfEmpty()
  if (seeded !== undefined) {
    yield* Effect.logInfo(
      `first start: loaded the directory (seed "${seeded.seed}": ${seeded.companies} companies, ${seeded.people} people) in ${
        (seeded.millis / 1000).toFixed(1)
      } s; brein seed replaces it`
    )
  }
}))

/** What `brein seed` needs: the loader over the configured database. */
export const SeedLive = DirectorySeed.Default.pipe(Layer.provideMerge(DatabaseLive))
