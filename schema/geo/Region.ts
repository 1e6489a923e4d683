import { CHILE_REGIONS } from "./ChileRegions.ts"
import { guardedPlace } from "./Guard.ts"
import { MEXICO_STATES } from "./MexicoStates.ts"

export const COUNTRIES = ["CL", "MX"] as const

/** A region of Chile or a state of Mexico, decoded to its ISO 3166-2 code whichever way it was named. */
const codes = (places: ReadonlyArray<{ readonly code: string }>) =>
  `${places[0]?.code.slice(0, 3)}{${places.map((p) => p.code.slice(3)).join(",")}}`

/** Every code, compact: CL-{AP,TA,…} and MX-{AGU,BCN,…}. */
export const REGION_CODES = `${codes(CHILE_REGIONS)} ${codes(MEXICO_STATES)}`

export const regions = guardedPlace(
  [...CHILE_REGIONS, ...MEXICO_STATES],
  "a region of Chile or a state of Mexico",
  "region: give a code of this field's description (CL-RM, MX-JAL), a name (Biobío, Nuevo León) or an alias (CDMX, Edomex)"
)

export const RegionCode = regions.Code
export type RegionCode = typeof RegionCode.Type

export const Region = regions.schema.annotations({
  identifier: "Region",
  description:
    `A region of Chile or a state of Mexico by ISO 3166-2 code (${REGION_CODES}), name (Metropolitana, Biobio, Jalisco, Nuevo Leon) or alias (CDMX, Edomex): decoded to its code`
})

export const regionName = (code: string): string =>
  CHILE_REGIONS.find((r) => r.code === code)?.name ?? MEXICO_STATES.find((s) => s.code === code)?.name ?? code
