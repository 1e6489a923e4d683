import { DateTime } from "effect"
import {
  type IndicadorCodigo,
  IndicadorCodigo as IndicadorCodigoSchema,
  INDICADORES,
  type IndicadoresResumen,
  type IndicadorSerie,
  type IndicadorValor,
  MINDICADOR_AUTOR,
  MINDICADOR_VERSION
} from "../../schema/upstream/Indicador.ts"
import { chileMidnightIso, type Day } from "./CivilDate.ts"
import { type Punto, recent, SERIE_LENGTH } from "./IndicadoresGenerator.ts"

export const CODIGOS: ReadonlyArray<IndicadorCodigo> = IndicadorCodigoSchema.literals

export const indicadorValor = (codigo: IndicadorCodigo, punto: Punto): IndicadorValor => ({
  codigo,
  nombre: INDICADORES[codigo].nombre,
  unidad_medida: INDICADORES[codigo].unidad_medida,
  fecha: chileMidnightIso(punto.day),
  valor: punto.valor
})

export const indicadorSerie = (codigo: IndicadorCodigo, puntos: ReadonlyArray<Punto>): IndicadorSerie => ({
  version: MINDICADOR_VERSION,
  autor: MINDICADOR_AUTOR,
  codigo,
  nombre: INDICADORES[codigo].nombre,
  unidad_medida: INDICADORES[codigo].unidad_medida,
  serie: puntos.map((p) => ({ fecha: chileMidnightIso(p.day), valor: p.valor }))
})

/** The newest public value of a code, `staleDays` older when asked to imitate a stale upstream. */
export const latestPunto = (codigo: IndicadorCodigo, today: Day, staleDays = 0): Punto | undefined =>
  recent(codigo, today - staleDays, 1)[0]

export const recentSerie = (codigo: IndicadorCodigo, today: Day): IndicadorSerie =>
  indicadorSerie(codigo, recent(codigo, today, SERIE_LENGTH[INDICADORES[codigo].periodicidad]))

export const resumen = (
  today: Day,
  nowMillis: number,
  staleDays: Partial<Record<IndicadorCodigo, number>> = {}
): IndicadoresResumen => {
  // every code has a public value from 2014-11-13 on (dolar_intercambio's frozen date), so no key is missing
  const values = Object.fromEntries(
    CODIGOS.flatMap((codigo) => {
      const punto = latestPunto(codigo, today, staleDays[codigo] ?? 0)
      return punto === undefined ? [] : [[codigo, indicadorValor(codigo, punto)] as const]
    })
  ) as Record<IndicadorCodigo, IndicadorValor>
  return {
    version: MINDICADOR_VERSION,
    autor: MINDICADOR_AUTOR,
    fecha: DateTime.formatIso(DateTime.unsafeMake(nowMillis)),
    ...values
  }
}
