import { Effect, Layer } from "effect"
import { DirectorySeed } from "../services/catalog/empresas/DirectorySeed.ts"
import { MarketAggregates } from "../services/catalog/mercado/Aggregates.ts"
import { MarketSeed } from "../services/catalog/mercado/MarketSeed.ts"
import { DatabaseLive } from "./Database.ts"
import { seedOnStart } from "./Directory.ts"

/** The Mercado data set's services: its loader and the queries of its tools. Needs SqlClient. */
export const MarketLive = Layer.mergeAll(MarketSeed.Default, MarketAggregates.Default)

/** The first start on an empty Mercado loads the default data set before serving, under the directory's rule (seedOnStart). */
export const SeedMarketOnStart = Layer.effectDiscard(Effect.gen(function* () {
  if (!(yield* seedOnStart)) return
  const seeded = yield* (yield* MarketSeed).loadIfEmpty()
  if (seeded !== undefined) {
    yield* Effect.logInfo(
      `first start: loaded Mercado (seed "${seeded.seed}": ${seeded.awards} awards, ${seeded.suppliers} suppliers, ${seeded.opportunities} procedures) in ${
        (seeded.millis / 1000).toFixed(1)
      } s; brein seed replaces it`
    )
  }
}))

/** What `brein seed` needs: both loaders over the configured database. */
export const SeedAllLive = Layer.mergeAll(DirectorySeed.Default, MarketSeed.Default).pipe(Layer.provideMerge(DatabaseLive))
