import { Schema } from "effect"
import { publishDecoded } from "../tools/JsonSchema.ts"

/** The closed list of supplier sectors of the Mercado data set, with the Spanish label answered beside each. */
export const MARKET_SECTORS = {
  medicamentos: "Medicamentos y material de curación",
  equipo_medico: "Equipo e instrumental médico",
  construccion: "Construcción y obra pública",
  mantenimiento: "Mantenimiento y conservación",
  tecnologia: "Tecnologías de la información",
  limpieza: "Limpieza e higiene",
  alimentos: "Alimentos y víveres",
  papeleria: "Papelería y artículos de oficina",
  vehiculos: "Vehículos y refacciones",
  combustibles: "Combustibles y lubricantes",
  seguridad: "Seguridad y vigilancia",
  consultoria: "Consultoría y servicios profesionales"
} as const

export type MarketSector = keyof typeof MARKET_SECTORS

export const MARKET_SECTOR_KEYS = Object.keys(MARKET_SECTORS) as unknown as readonly [MarketSector, ...ReadonlyArray<MarketSector>]

export const MarketSector = Schema.Literal(...MARKET_SECTOR_KEYS).annotations({
  identifier: "MarketSector",
  description: `A supplier sector: ${MARKET_SECTOR_KEYS.join(", ")}`
})

/** A sector as a tool takes it: spaces and case ignored, one of the closed list, else refused naming the list. */
export const SectorInput = publishDecoded(
  Schema.compose(Schema.compose(Schema.Trim, Schema.Lowercase), MarketSector).annotations({
    description: `A supplier sector: ${MARKET_SECTOR_KEYS.join(", ")}`,
    message: () => ({ message: `must be a sector: one of ${MARKET_SECTOR_KEYS.join(", ")}`, override: true })
  })
)
