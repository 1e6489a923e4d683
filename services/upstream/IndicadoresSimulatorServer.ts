import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { Clock, Context, Data, Effect, Layer, Option, Ref, Schema } from "effect"
import { IndicadorCodigo, IndicadoresResumen, IndicadorSerie } from "../../schema/upstream/Indicador.ts"
import { chileDayOf, type Day, dayFromYmd, ymdFromDay } from "./CivilDate.ts"
import { pointsBetween } from "./IndicadoresGenerator.ts"
import { indicadorSerie, recentSerie, resumen } from "./Mindicador.ts"
import { scaledSleep } from "./SimulatorClock.ts"

export type ServerFault = Data.TaggedEnum<{
  None: {}
  /** Answer `status` (e.g. 503) to the next `times` requests. */
  Status: { readonly status: number; readonly times: number }
  /** Never answer the next `times` requests, so the client's timeout fires. */
  Hang: { readonly times: number }
}>
export const ServerFault = Data.taggedEnum<ServerFault>()

export interface IndicadoresServerOptions {
  readonly latencyMs?: number
  readonly timeScale?: number
  readonly fault?: ServerFault
  /** Serve these codes this many days old in GET /api, as mindicador sometimes does. */
  readonly staleDays?: Partial<Record<IndicadorCodigo, number>>
}

export interface IndicadoresServerControlShape {
  readonly inject: (fault: ServerFault) => Effect.Effect<void>
  readonly requests: Effect.Effect<number>
}

export class IndicadoresServerControl extends Context.Tag("brein/upstream/IndicadoresServerControl")<
  IndicadoresServerControl,
  IndicadoresServerControlShape
>() {}

const notFound = (error: string) => HttpServerResponse.unsafeJson({ error }, { status: 404 })

const decodeCodigo = Schema.decodeUnknownOption(IndicadorCodigo)

const today = Effect.map(Clock.currentTimeMillis, chileDayOf)

const encodeSerie = HttpServerResponse.schemaJson(IndicadorSerie)

const rangeOf = (param: string): readonly [Day, Day] | undefined => {
  const dated = /^(\d{2})-(\d{2})-(\d{4})$/.exec(param)
  if (dated !== null) {
    const [day, month, year] = [Number(dated[1]), Number(dated[2]), Number(dated[3])]
    const date = dayFromYmd(year, month, day)
    const back = ymdFromDay(date)
    return back.day === day && back.month === month ? [date, date] : undefined
  }
  return /^\d{4}$/.test(param) ? [dayFromYmd(Number(param), 1, 1), dayFromYmd(Number(param), 12, 31)] : undefined
}

const serie = Effect.gen(function* () {
  const params = yield* HttpRouter.params
  const codigo = decodeCodigo(params.codigo)
  if (Option.isNone(codigo)) return notFound(`unknown indicator ${params.codigo ?? ""}`)
  const day = yield* today
  if (params.fecha === undefined) return yield* encodeSerie(recentSerie(codigo.value, day))
  const range = rangeOf(params.fecha)
  if (range === undefined) return notFound("dates look like DD-MM-YYYY, or a year YYYY")
  return yield* encodeSerie(indicadorSerie(codigo.value, pointsBetween(codigo.value, range[0], range[1], day)))
})

export const makeIndicadoresServer = Effect.fn("IndicadoresSimulatorServer.make")(function* (options: IndicadoresServerOptions) {
  const fault = yield* Ref.make<ServerFault>(options.fault ?? ServerFault.None())
  const requests = yield* Ref.make(0)
  const latency = scaledSleep(options.latencyMs ?? 300, options.timeScale ?? 1)

  const takeFault = Ref.modify(fault, (current): readonly [ServerFault, ServerFault] =>
    current._tag === "None"
      ? [current, current]
      : [current, current.times <= 1 ? ServerFault.None() : { ...current, times: current.times - 1 }])

  const guarded = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.gen(function* () {
      yield* Ref.update(requests, (n) => n + 1)
      const current = yield* takeFault
      if (current._tag === "Hang") return yield* Effect.never
      if (current._tag === "Status") {
        return HttpServerResponse.unsafeJson({ error: "simulated upstream failure" }, { status: current.status })
      }
      yield* latency
      return yield* handler
    })

  const router = HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api",
      guarded(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          return yield* HttpServerResponse.schemaJson(IndicadoresResumen)(resumen(chileDayOf(now), now, options.staleDays))
        })
      )
    ),
    HttpRouter.get("/api/:codigo", guarded(serie)),
    HttpRouter.get("/api/:codigo/:fecha", guarded(serie))
  )

  const control = IndicadoresServerControl.of({
    inject: Effect.fn("IndicadoresSimulatorServer.inject")(function* (next: ServerFault) {
      yield* Ref.set(fault, next)
    }),
    requests: Ref.get(requests)
  })
  return { router, control }
})

export const IndicadoresSimulatorServer = {
  /** Serves mindicador's GET /api, /api/{codigo}, /api/{codigo}/{DD-MM-YYYY|YYYY} on the provided HttpServer. */
  layer: (options: IndicadoresServerOptions = {}): Layer.Layer<IndicadoresServerControl, never, HttpServer.HttpServer> =>
    Layer.unwrapEffect(
      Effect.map(
        makeIndicadoresServer(options),
        ({ control, router }) => Layer.merge(HttpServer.serve(router), Layer.succeed(IndicadoresServerControl, control))
      )
    ),
  /** Base URL of the running server (append /api), for a client under test. */
  baseUrl: HttpServer.addressWith((address) =>
    Effect.succeed(
      address._tag === "UnixAddress"
        ? `unix://${address.path}`
        : `http://${address.hostname === "0.0.0.0" || address.hostname === "::" ? "127.0.0.1" : address.hostname}:${address.port}`
    )
  )
}
