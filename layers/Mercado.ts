import { Effect, Layer } from "effect"
import { DirectorySeed } from "../services/catalog/empresas/DirectorySeed.ts"
import { MarketAggregates } from "../services/catalog/mercado/Aggregates.ts"
import { Market } from "../services/catalog/mercado/Market.ts"
import { MarketSeed } from "../services/catalog/mercado/MarketSeed.ts"
import { Unknown } from "../services/catalog/mercado/Unknown.ts"
import { DatabaseLive } from "./Database.ts"
import { seedOnStart } from "./Directory.ts"

/** The Mercado data set: its loader, the reads and aggregates of its tools, and the check of the ids they filter by. Needs SqlClient (and SealedCursor to run its searches). */
export const MercadoLive = Layer.mergeAll(MarketSeed.Default, MarketAggregates.Default, Market.Default, Unknown.Default)

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
