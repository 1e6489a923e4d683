/**
 * The generated data sets' defaults and bounds: what `brein seed` offers and checks before it loads the
 * generators (their modules hold the catalog's word lists and are loaded only to generate).
 */

/** The directory's and Mercado's seed when none is given: the same seed gives the same data, ids included. */
export const DEFAULT_SEED = "brein"
export const DEFAULT_MARKET_SEED = DEFAULT_SEED
export const DEFAULT_COMPANIES = 20_000
/** RUT bodies and RFC (date, homoclave) pairs are drawn without repetition up to this many companies. */
export const MAX_COMPANIES = 1_500_000
export const DEFAULT_AWARDS = 200_000
export const MAX_AWARDS = 5_000_000
