import { Schema } from "effect"

export const IndicadorCodigo = Schema.Literal(
  "uf",
  "ivp",
  "dolar",
  "dolar_intercambio",
  "euro",
  "ipc",
  "utm",
  "imacec",
  "tpm",
  "libra_cobre",
  "tasa_desempleo",
  "bitcoin"
).annotations({ identifier: "IndicadorCodigo", description: "mindicador.cl indicator code" })
export type IndicadorCodigo = typeof IndicadorCodigo.Type

export const UnidadMedida = Schema.Literal("Pesos", "Porcentaje", "Dólar")
export type UnidadMedida = typeof UnidadMedida.Type

export type Periodicidad = "diaria" | "habil" | "mensual" | "fija"

export interface IndicadorMeta {
  readonly codigo: IndicadorCodigo
  readonly nombre: string
  readonly unidad_medida: UnidadMedida
  readonly periodicidad: Periodicidad
}

export const INDICADORES: Readonly<Record<IndicadorCodigo, IndicadorMeta>> = {
  uf: { codigo: "uf", nombre: "Unidad de fomento (UF)", unidad_medida: "Pesos", periodicidad: "diaria" },
  ivp: { codigo: "ivp", nombre: "Indice de valor promedio (IVP)", unidad_medida: "Pesos", periodicidad: "diaria" },
  dolar: { codigo: "dolar", nombre: "Dólar observado", unidad_medida: "Pesos", periodicidad: "habil" },
  dolar_intercambio: { codigo: "dolar_intercambio", nombre: "Dólar acuerdo", unidad_medida: "Pesos", periodicidad: "fija" },
  euro: { codigo: "euro", nombre: "Euro", unidad_medida: "Pesos", periodicidad: "habil" },
  ipc: { codigo: "ipc", nombre: "Indice de Precios al Consumidor (IPC)", unidad_medida: "Porcentaje", periodicidad: "mensual" },
  utm: { codigo: "utm", nombre: "Unidad Tributaria Mensual (UTM)", unidad_medida: "Pesos", periodicidad: "mensual" },
  imacec: { codigo: "imacec", nombre: "Imacec", unidad_medida: "Porcentaje", periodicidad: "mensual" },
  tpm: { codigo: "tpm", nombre: "Tasa Política Monetaria (TPM)", unidad_medida: "Porcentaje", periodicidad: "habil" },
  libra_cobre: { codigo: "libra_cobre", nombre: "Libra de Cobre", unidad_medida: "Dólar", periodicidad: "habil" },
  tasa_desempleo: { codigo: "tasa_desempleo", nombre: "Tasa de desempleo", unidad_medida: "Porcentaje", periodicidad: "mensual" },
  bitcoin: { codigo: "bitcoin", nombre: "Bitcoin", unidad_medida: "Dólar", periodicidad: "diaria" }
}

const FechaUtc = Schema.String.annotations({
  description: "ISO instant in UTC; midnight in Chile shows as T03:00:00.000Z or T04:00:00.000Z"
})

export const IndicadorValor = Schema.Struct({
  codigo: IndicadorCodigo,
  nombre: Schema.String,
  unidad_medida: UnidadMedida,
  fecha: FechaUtc,
  valor: Schema.Number
}).annotations({ identifier: "IndicadorValor" })
export type IndicadorValor = typeof IndicadorValor.Type

export const SeriePunto = Schema.Struct({ fecha: FechaUtc, valor: Schema.Number })
export type SeriePunto = typeof SeriePunto.Type

export const IndicadorSerie = Schema.Struct({
  version: Schema.String,
  autor: Schema.String,
  codigo: IndicadorCodigo,
  nombre: Schema.String,
  unidad_medida: UnidadMedida,
  serie: Schema.Array(SeriePunto).annotations({ description: "Newest first" })
}).annotations({ identifier: "IndicadorSerie" })
export type IndicadorSerie = typeof IndicadorSerie.Type

export const IndicadoresResumen = Schema.Struct(
  { version: Schema.String, autor: Schema.String, fecha: FechaUtc },
  Schema.Record({ key: IndicadorCodigo, value: IndicadorValor })
).annotations({ identifier: "IndicadoresResumen", description: "GET /api: the latest value of every indicator" })
export type IndicadoresResumen = typeof IndicadoresResumen.Type

export const MINDICADOR_VERSION = "1.7.0"
export const MINDICADOR_AUTOR = "mindicador.cl"
