import { Config, Effect, Layer, Option, Redacted } from "effect"
import { AuditKey } from "../services/audit/AuditKey.ts"
import { DirectorySeed } from "../services/catalog/empresas/DirectorySeed.ts"
import { MarketAggregates } from "../services/catalog/mercado/Aggregates.ts"
import { CursorKey } from "../services/catalog/mercado/CursorKey.ts"
import { Market } from "../services/catalog/mercado/Market.ts"
import { MarketSeed } from "../services/catalog/mercado/MarketSeed.ts"
import { SealedCursor } from "../services/catalog/mercado/SealedCursor.ts"
import { base64Key } from "../services/Crypto.ts"
import { DatabaseLive } from "./Database.ts"
import { seedOnStart } from "./Directory.ts"

/** BREIN_CURSOR_KEY if set; otherwise a key of its own derived from the audit key (which is never used as is). */
export const CursorKeyLive = Layer.effect(
  CursorKey,
  Effect.gen(function* () {
    const given = yield* Config.option(Config.redacted("BREIN_CURSOR_KEY"))
    if (Option.isSome(given)) return Redacted.make(yield* base64Key("BREIN_CURSOR_KEY", Redacted.value(given.value)))
    const audit = yield* AuditKey
    const signing = yield* audit.forSigning
    const key = Option.isSome(signing) ? signing : yield* audit.forVerify
    if (Option.isNone(key)) {
      return yield* Effect.dieMessage("no key to seal cursors with: set BREIN_CURSOR_KEY (openssl rand -base64 32) or BREIN_AUDIT_KEY")
    }
    return CursorKey.derivedFrom(key.value)
  }).pipe(Effect.orDie)
)

/** The Mercado data set: its loader, the reads and aggregates of its tools, and their sealed cursors. Needs SqlClient and a CursorKey. */
export const MarketLive = Layer.mergeAll(MarketSeed.Default, MarketAggregates.Default, Market.Default, SealedCursor.Default)

/** The same, with the cursor key from configuration or the audit key. Needs SqlClient and AuditKey. */
export const MercadoLive = MarketLive.pipe(Layer.provide(CursorKeyLive))

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
