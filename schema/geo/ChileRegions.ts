import { Schema } from "effect"
import { guardedPlace } from "./Guard.ts"

/** Chile's 16 regions (ISO 3166-2:CL), north to south, with their capital. */
export const CHILE_REGIONS = [
  { code: "CL-AP", name: "Arica y Parinacota", capital: "Arica", aliases: ["Arica", "XV"] },
  { code: "CL-TA", name: "Tarapacá", capital: "Iquique", aliases: ["I"] },
  { code: "CL-AN", name: "Antofagasta", capital: "Antofagasta", aliases: ["II"] },
  { code: "CL-AT", name: "Atacama", capital: "Copiapó", aliases: ["III"] },
  { code: "CL-CO", name: "Coquimbo", capital: "La Serena", aliases: ["IV"] },
  { code: "CL-VS", name: "Valparaíso", capital: "Valparaíso", aliases: ["V", "Region de Valparaiso"] },
  {
    code: "CL-RM",
    name: "Región Metropolitana de Santiago",
    capital: "Santiago",
    aliases: ["Metropolitana", "Región Metropolitana", "RM", "Santiago", "XIII"]
  },
  {
    code: "CL-LI",
    name: "Libertador General Bernardo O'Higgins",
    capital: "Rancagua",
    aliases: ["O'Higgins", "OHiggins", "VI", "Libertador Bernardo O'Higgins"]
  },
  { code: "CL-ML", name: "Maule", capital: "Talca", aliases: ["VII", "Región del Maule"] },
  { code: "CL-NB", name: "Ñuble", capital: "Chillán", aliases: ["XVI", "Región de Ñuble"] },
  { code: "CL-BI", name: "Biobío", capital: "Concepción", aliases: ["Bío Bío", "Bio-Bio", "VIII", "Región del Biobío"] },
  { code: "CL-AR", name: "La Araucanía", capital: "Temuco", aliases: ["Araucanía", "IX"] },
  { code: "CL-LR", name: "Los Ríos", capital: "Valdivia", aliases: ["XIV"] },
  { code: "CL-LL", name: "Los Lagos", capital: "Puerto Montt", aliases: ["X"] },
  {
    code: "CL-AI",
    name: "Aysén del General Carlos Ibáñez del Campo",
    capital: "Coyhaique",
    aliases: ["Aysén", "Aisén", "XI"]
  },
  {
    code: "CL-MA",
    name: "Magallanes y de la Antártica Chilena",
    capital: "Punta Arenas",
    aliases: ["Magallanes", "XII"]
  }
] as const

export const chileRegions = guardedPlace(CHILE_REGIONS, "a region of Chile")

/** A region code, as stored and answered (e.g. CL-RM). */
export const ChileRegionCode = chileRegions.Code
export type ChileRegionCode = typeof ChileRegionCode.Type

/** A region of Chile given by its code, name (accents optional) or a common alias, decoded to its code. */
export const ChileRegion = chileRegions.schema.annotations({
  identifier: "ChileRegion",
  description: "A region of Chile: its ISO 3166-2:CL code (CL-RM), its name (Región Metropolitana, Biobio) or its roman numeral"
})

export const chileRegionByCode: ReadonlyMap<string, (typeof CHILE_REGIONS)[number]> = new Map(CHILE_REGIONS.map((r) => [r.code, r]))

export const isChileRegion = Schema.is(ChileRegionCode)
