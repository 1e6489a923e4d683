import { Effect, Layer } from "effect"
import { MarketSeed } from "../../../../services/catalog/mercado/MarketSeed.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { ServicesTest } from "../../../support/TestLayers.ts"

/** The small data set tests load: 3,000 awards (about 375 suppliers, 30 buying units), the same rows on every run. */
export const MARKET_TEST_SEED = "mercado-test"
export const MARKET_TEST_AWARDS = 3_000

/** Loads the small test data set (or another size) into the test database, replacing any there. */
export const seedMarket = (options: { readonly seed?: string; readonly awards?: number } = {}) =>
  Effect.flatMap(MarketSeed, (seed) => seed.load({ seed: options.seed ?? MARKET_TEST_SEED, awards: options.awards ?? MARKET_TEST_AWARDS }))

/** The whole service graph (executor, registry, workspaces …) over a fresh database holding the small data set: one per test file using `layer(...)`. */
export const MarketSeededServices = Layer.effectDiscard(seedMarket()).pipe(Layer.provideMerge(ServicesTest))

/** Only the loader over a fresh database holding the small data set, for tests of the data alone. */
export const MarketSeededDatabase = Layer.effectDiscard(seedMarket()).pipe(
  Layer.provideMerge(MarketSeed.Default),
  Layer.provideMerge(TestDatabase)
)
