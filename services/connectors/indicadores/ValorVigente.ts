import { Effect } from "effect"
import { IndicadorValueNotFound } from "../../../schema/upstream/Errors.ts"
import type { Fecha } from "../../../schema/upstream/Fecha.ts"
import { type IndicadorCodigo, INDICADORES, type Periodicidad } from "../../../schema/upstream/Indicador.ts"
import { chileDayOf, type Day, formatIsoDay, parseIsoDay } from "../../upstream/CivilDate.ts"
import { IndicadoresSource } from "../../upstream/IndicadoresSource.ts"

/** How far back the value in force may be dated: a long weekend for business-day indicators; monthly ones lag up to two months. */
const LOOKBACK_DAYS: Readonly<Record<Exclude<Periodicidad, "diaria" | "fija">, number>> = { habil: 7, mensual: 124 }

/** The day (America/Santiago) of a mindicador instant. */
export const diaDe = (instant: string): Fecha => formatIsoDay(chileDayOf(Date.parse(instant)))

/** The value in force on `fecha`: the one dated that day, or the newest dated before it for indicators not published daily. */
export const valorVigente = Effect.fn("Indicadores.valorVigente")(function* (codigo: IndicadorCodigo, fecha: Fecha, today: Day) {
  const source = yield* IndicadoresSource
  const periodicidad = INDICADORES[codigo].periodicidad
  const day = parseIsoDay(fecha)
  if (periodicidad === "fija") {
    const valor = yield* source.valor(codigo)
    if (diaDe(valor.fecha) > fecha) return yield* new IndicadorValueNotFound({ codigo, fecha })
    return valor
  }
  // a future date has only the value dated that day, if the source already publishes it
  if (periodicidad === "diaria" || day > today) return yield* source.valor(codigo, fecha)
  const desde = formatIsoDay(day - LOOKBACK_DAYS[periodicidad])
  const serie = yield* source.serie(codigo, desde, fecha)
  const newest = serie.serie.reduce<(typeof serie.serie)[number] | undefined>(
    (best, punto) => (best === undefined || Date.parse(punto.fecha) > Date.parse(best.fecha) ? punto : best),
    undefined
  )
  if (newest === undefined) return yield* new IndicadorValueNotFound({ codigo, fecha })
  return { codigo, nombre: serie.nombre, unidad_medida: serie.unidad_medida, ...newest }
})
