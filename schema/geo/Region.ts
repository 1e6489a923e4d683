import { CHILE_REGIONS } from "./ChileRegions.ts"
import { guardedPlace } from "./Guard.ts"
import { MEXICO_STATES } from "./MexicoStates.ts"

export const COUNTRIES = ["CL", "MX"] as const

/** A region of Chile or a state of Mexico, decoded to its ISO 3166-2 code whichever way it was named. */
export const regions = guardedPlace([...CHILE_REGIONS, ...MEXICO_STATES], "a region of Chile or a state of Mexico")

export const RegionCode = regions.Code
export type RegionCode = typeof RegionCode.Type

export const Region = regions.schema.annotations({
  identifier: "Region",
  description:
    "A region of Chile (CL-RM, Metropolitana, Biobio) or a state of Mexico (MX-JAL, Jalisco, CDMX, Edomex, Nuevo Leon): decoded to its ISO 3166-2 code"
})

export const regionName = (code: string): string =>
  CHILE_REGIONS.find((r) => r.code === code)?.name ?? MEXICO_STATES.find((s) => s.code === code)?.name ?? code
