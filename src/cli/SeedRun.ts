import { Console, Effect, type Option } from "effect"
import { SeedAllLive } from "../../layers/Mercado.ts"
import { DirectorySeed } from "../../services/catalog/empresas/DirectorySeed.ts"
import { MarketSeed } from "../../services/catalog/mercado/MarketSeed.ts"

const seconds = (millis: number) => `${(millis / 1000).toFixed(1)} s`
const n = (count: number) => count.toLocaleString("en-US")

const loadDirectory = (options: { readonly seed: string; readonly companies: number }) =>
  Effect.gen(function* () {
    yield* Console.error(`loading the directory: ${n(options.companies)} companies, seed "${options.seed}" (one transaction)…`)
    const seeded = yield* (yield* DirectorySeed).load(options)
    yield* Console.log(
      `loaded ${n(seeded.companies)} companies and ${n(seeded.people)} people (seed "${seeded.seed}") in ${seconds(seeded.millis)}`
    )
  })

const loadMercado = (options: { readonly seed: string; readonly awards: number }) =>
  Effect.gen(function* () {
    yield* Console.error(`loading Mercado: ${n(options.awards)} awards, seed "${options.seed}" (one transaction)…`)
    const seeded = yield* (yield* MarketSeed).load(options)
    yield* Console.log(
      `loaded Mercado: ${n(seeded.awards)} awards, ${n(seeded.opportunities)} procedures, ${n(seeded.suppliers)} suppliers, ${
        n(seeded.units)
      } buying units, ${n(seeded.permits)} permits, ${n(seeded.risks)} risk records (seed "${seeded.seed}") in ${seconds(seeded.millis)}`
    )
  })

/** `brein seed`, loaded when it runs (its options are checked in src/cli/Seed.ts). */
export const seed = (options: {
  readonly only: Option.Option<"directory" | "mercado">
  readonly seed: string
  readonly companies: number
  readonly awards: number
}) =>
  Effect.gen(function* () {
    const which = options.only._tag === "Some" ? options.only.value : "both"
    if (which !== "mercado") yield* loadDirectory({ seed: options.seed, companies: options.companies })
    if (which !== "directory") yield* loadMercado({ seed: options.seed, awards: options.awards })
  }).pipe(Effect.provide(SeedAllLive))
