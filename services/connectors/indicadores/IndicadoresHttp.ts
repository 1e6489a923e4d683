import { HttpClient, HttpClientError, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Array as Arr, type Duration, Effect, Layer, Option, Predicate, Schedule, Schema } from "effect"
import { IndicadorValueNotFound, UpstreamUnavailable } from "../../../schema/upstream/Errors.ts"
import type { Fecha } from "../../../schema/upstream/Fecha.ts"
import {
  IndicadorCodigo,
  type IndicadorSerie,
  type IndicadorValor,
  type SeriePunto,
  UnidadMedida
} from "../../../schema/upstream/Indicador.ts"
import { chileDayOf, formatDmy, formatIsoDay, parseIsoDay, todayInChile, ymdFromDay } from "../../upstream/CivilDate.ts"
import { IndicadoresSource } from "../../upstream/IndicadoresSource.ts"

export interface IndicadoresHttpOptions {
  /** Root of a mindicador-shaped service, e.g. https://mindicador.cl (requests go to /api/…). */
  readonly baseUrl: string
  readonly timeout?: Duration.DurationInput
  readonly backoff?: Duration.DurationInput
  readonly retries?: number
  /** What UpstreamUnavailable tells the caller when the upstream sends no Retry-After. */
  readonly retryAfterSeconds?: number
}

export const INDICADORES_TIMEOUT: Duration.DurationInput = "5 seconds"
export const INDICADORES_RETRY_AFTER_SECONDS = 30

/** 250 ms, 500 ms, 1 s: a 5xx or a dropped connection is usually gone by the next try. */
export const transientRetry = (backoff: Duration.DurationInput = "250 millis", retries = 3) =>
  Schedule.exponential(backoff).pipe(Schedule.intersect(Schedule.recurs(retries)))

const SerieBody = Schema.Struct({
  version: Schema.String,
  autor: Schema.String,
  codigo: IndicadorCodigo,
  nombre: Schema.String,
  unidad_medida: UnidadMedida,
  serie: Schema.Array(Schema.Unknown)
})
type SerieBody = typeof SerieBody.Type

const ValidPunto = Schema.Struct({
  fecha: Schema.String.pipe(Schema.filter((text) => Number.isFinite(Date.parse(text)))),
  valor: Schema.Number.pipe(Schema.finite())
})
const decodePunto = Schema.decodeUnknownOption(ValidPunto)

// A hung upstream is not retried: four timeouts in a row would hold the caller for 20 s.
const isTransient = (error: unknown) =>
  HttpClientError.isHttpClientError(error) &&
  ((error._tag === "RequestError" && error.reason === "Transport") ||
    (error._tag === "ResponseError" && error.reason === "StatusCode" && error.response.status >= 500))

const retryAfterOf = (error: unknown, fallback: number) => {
  if (!HttpClientError.isHttpClientError(error) || error._tag !== "ResponseError") return fallback
  const seconds = Number(error.response.headers["retry-after"])
  return Number.isInteger(seconds) && seconds >= 0 ? seconds : fallback
}

const failureOf = (error: unknown): string => {
  if (HttpClientError.isHttpClientError(error)) {
    return error._tag === "ResponseError" ? `${error.reason} (HTTP ${error.response.status})` : error.reason
  }
  return Predicate.isTagged(error, "TimeoutException") ? "Timeout" : "NotMindicadorShaped"
}

const dayOf = (punto: SeriePunto) => chileDayOf(Date.parse(punto.fecha))

const newestFirst = (puntos: ReadonlyArray<SeriePunto>) => [...puntos].sort((a, b) => Date.parse(b.fecha) - Date.parse(a.fecha))

const toSerie = (body: SerieBody, serie: ReadonlyArray<SeriePunto>): IndicadorSerie => ({
  version: body.version,
  autor: body.autor,
  codigo: body.codigo,
  nombre: body.nombre,
  unidad_medida: body.unidad_medida,
  serie: newestFirst(serie)
})

export const makeIndicadoresHttp = Effect.fn("IndicadoresHttp.make")(function* (options: IndicadoresHttpOptions) {
  const client = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest(HttpClientRequest.prependUrl(options.baseUrl.replace(/\/+$/, ""))),
    HttpClient.mapRequest(HttpClientRequest.acceptJson)
  )
  const timeout = options.timeout ?? INDICADORES_TIMEOUT
  const schedule = transientRetry(options.backoff, options.retries)
  const fallbackRetryAfter = options.retryAfterSeconds ?? INDICADORES_RETRY_AFTER_SECONDS

  const get = (path: string) =>
    client.get(path).pipe(
      Effect.flatMap(HttpClientResponse.filterStatusOk),
      Effect.flatMap(HttpClientResponse.schemaBodyJson(SerieBody)),
      Effect.timeout(timeout),
      Effect.retry({ schedule, while: isTransient }),
      Effect.tapError((error) =>
        Effect.logWarning("indicadores upstream failed").pipe(Effect.annotateLogs({ path, failure: failureOf(error) }))
      ),
      Effect.mapError((error) =>
        new UpstreamUnavailable({ upstream: "indicadores", retryAfterSeconds: retryAfterOf(error, fallbackRetryAfter) })
      ),
      Effect.flatMap((body) => {
        const valid = body.serie.flatMap((raw) => Option.toArray(decodePunto(raw)))
        const skipped = body.serie.length - valid.length
        const log = skipped > 0
          ? Effect.logWarning("indicadores upstream sent invalid values").pipe(Effect.annotateLogs({ path, skipped }))
          : Effect.void
        return Effect.as(log, { body, valid })
      })
    )

  const valor = Effect.fn("IndicadoresHttp.valor")(function* (codigo: IndicadorCodigo, fecha?: Fecha) {
    const path = fecha === undefined ? `/api/${codigo}` : `/api/${codigo}/${formatDmy(parseIsoDay(fecha), "-")}`
    const { body, valid } = yield* get(path)
    const punto = newestFirst(valid).find((p) => fecha === undefined || formatIsoDay(dayOf(p)) === fecha)
    if (punto === undefined) {
      return yield* new IndicadorValueNotFound({ codigo, fecha: fecha ?? formatIsoDay(yield* todayInChile) })
    }
    return { codigo: body.codigo, nombre: body.nombre, unidad_medida: body.unidad_medida, ...punto } satisfies IndicadorValor
  })

  const serie = Effect.fn("IndicadoresHttp.serie")(function* (codigo: IndicadorCodigo, desde: Fecha, hasta: Fecha) {
    const [from, to] = [parseIsoDay(desde), parseIsoDay(hasta)]
    const [first, last] = [ymdFromDay(from).year, ymdFromDay(to).year]
    const years = Arr.makeBy(Math.max(1, last - first + 1), (i) => first + i)
    const pages = yield* Effect.forEach(years, (year) => get(`/api/${codigo}/${year}`), { concurrency: 3 })
    const inRange = pages.flatMap((page) => page.valid.filter((p) => dayOf(p) >= from && dayOf(p) <= to))
    return toSerie(Arr.headNonEmpty(pages).body, inRange)
  })

  return IndicadoresSource.of({ valor, serie })
})

export const IndicadoresHttp = {
  /** The live source: a mindicador-shaped HTTP API, with retries on 5xx/transport errors and a timeout per request. */
  layer: (options: IndicadoresHttpOptions): Layer.Layer<IndicadoresSource, never, HttpClient.HttpClient> =>
    Layer.effect(IndicadoresSource, makeIndicadoresHttp(options))
}
