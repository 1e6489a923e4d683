import { type ConfigError, Context, Effect, Layer } from "effect"
import { IndicadorValueNotFound, type UpstreamUnavailable } from "../../schema/upstream/Errors.ts"
import type { Fecha } from "../../schema/upstream/Fecha.ts"
import type { IndicadorCodigo, IndicadorSerie, IndicadorValor } from "../../schema/upstream/Indicador.ts"
import { formatIsoDay, parseIsoDay, todayInChile } from "./CivilDate.ts"
import { pointsBetween } from "./IndicadoresGenerator.ts"
import { indicadorSerie, indicadorValor, latestPunto } from "./Mindicador.ts"
import { scaledSleep, timeScaleConfig } from "./SimulatorClock.ts"

/** Chilean economic indicators (mindicador.cl shapes): a live HTTP client or the deterministic simulator. */
export class IndicadoresSource extends Context.Tag("brein/upstream/IndicadoresSource")<
  IndicadoresSource,
  {
    /** The value dated `fecha`, or the newest public one when `fecha` is omitted. */
    readonly valor: (
      codigo: IndicadorCodigo,
      fecha?: Fecha
    ) => Effect.Effect<IndicadorValor, IndicadorValueNotFound | UpstreamUnavailable>
    /** Public values dated within [desde, hasta], newest first. */
    readonly serie: (codigo: IndicadorCodigo, desde: Fecha, hasta: Fecha) => Effect.Effect<IndicadorSerie, UpstreamUnavailable>
  }
>() {}

export interface IndicadoresSimulatorOptions {
  readonly timeScale: number
  readonly latencyMs?: number
}

export const INDICADORES_LATENCY_MS = 300

export const makeIndicadoresSimulator = (options: IndicadoresSimulatorOptions) => {
  const latency = scaledSleep(options.latencyMs ?? INDICADORES_LATENCY_MS, options.timeScale)
  return IndicadoresSource.of({
    valor: Effect.fn("IndicadoresSimulator.valor")(function* (codigo: IndicadorCodigo, fecha?: Fecha) {
      yield* latency
      const today = yield* todayInChile
      const punto = fecha === undefined
        ? latestPunto(codigo, today)
        : pointsBetween(codigo, parseIsoDay(fecha), parseIsoDay(fecha), today)[0]
      if (punto === undefined) {
        return yield* new IndicadorValueNotFound({ codigo, fecha: fecha ?? formatIsoDay(today) })
      }
      return indicadorValor(codigo, punto)
    }),
    serie: Effect.fn("IndicadoresSimulator.serie")(function* (codigo: IndicadorCodigo, desde: Fecha, hasta: Fecha) {
      yield* latency
      const today = yield* todayInChile
      return indicadorSerie(codigo, pointsBetween(codigo, parseIsoDay(desde), parseIsoDay(hasta), today))
    })
  })
}

export const IndicadoresSimulator = {
  layerWith: (options: IndicadoresSimulatorOptions): Layer.Layer<IndicadoresSource> =>
    Layer.succeed(IndicadoresSource, makeIndicadoresSimulator(options)),
  /** Reads UPSTREAM_TIME_SCALE (default 1). */
  layer: Layer.unwrapEffect(
    Effect.map(timeScaleConfig, (timeScale) => Layer.succeed(IndicadoresSource, makeIndicadoresSimulator({ timeScale })))
  ) satisfies Layer.Layer<IndicadoresSource, ConfigError.ConfigError>
}
