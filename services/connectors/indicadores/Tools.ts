import { Effect } from "effect"
import {
  indicadoresHints,
  SerieObtenerInput,
  SerieObtenerOutput,
  ValorObtenerInput,
  ValorObtenerOutput
} from "../../../schema/connectors/Indicadores.ts"
import { connector } from "../../tools/Source.ts"
import { action } from "../../tools/Tool.ts"
import { formatIsoDay, todayInChile } from "../../upstream/CivilDate.ts"
import { IndicadoresSource } from "../../upstream/IndicadoresSource.ts"
import { diaDe, valorVigente } from "./ValorVigente.ts"

const round4 = (n: number) => Math.round(n * 10_000) / 10_000

export const valorObtener = action({
  id: "indicadores.valor.obtener",
  family: "indicadores",
  label: "Valor de un indicador",
  description:
    "The value of a Chilean economic indicator (UF, dólar, euro, UTM, IPC…) in force on a date, live from the source; nothing is stored. Business-day and monthly indicators answer with the newest value dated on or before the date, and say so in warnings.",
  plan: "free",
  hints: indicadoresHints,
  cost: { kind: "free" },
  level: 0,
  stages: [],
  input: ValorObtenerInput,
  output: ValorObtenerOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const today = yield* todayInChile
      const fecha = input.fecha ?? formatIsoDay(today)
      const valor = yield* valorVigente(input.codigo, fecha, today)
      const dated = diaDe(valor.fecha)
      if (dated !== fecha) {
        yield* ctx.annotate({
          warnings: [`${valor.nombre} has no value dated ${fecha}; this is the value in force then, dated ${dated}.`]
        })
      }
      return { codigo: input.codigo, nombre: valor.nombre, unidadMedida: valor.unidad_medida, fecha: dated, valor: valor.valor }
    })
})

export const serieObtener = action({
  id: "indicadores.serie.obtener",
  family: "indicadores",
  label: "Serie de un indicador",
  description:
    "The values of a Chilean economic indicator dated within a range (at most 366 days), live from the source, with n, total, promedio, minimo and maximo and a ref to cite them; nothing is stored.",
  plan: "free",
  hints: indicadoresHints,
  cost: { kind: "free" },
  level: 0,
  stages: [],
  input: SerieObtenerInput,
  output: SerieObtenerOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const source = yield* IndicadoresSource
      const today = formatIsoDay(yield* todayInChile)
      const upstream = yield* source.serie(input.codigo, input.desde, input.hasta)
      const serie = upstream.serie
        .map((punto) => ({ fecha: diaDe(punto.fecha), valor: punto.valor }))
        .filter((punto) => punto.fecha >= input.desde && punto.fecha <= input.hasta)
        .sort((a, b) => (a.fecha < b.fecha ? -1 : a.fecha > b.fecha ? 1 : 0))
      const valores = serie.map((punto) => punto.valor)
      const total = valores.reduce((sum, valor) => sum + valor, 0)
      if (serie.length === 0) {
        yield* ctx.annotate({
          warnings: [
            `No ${input.codigo} value is dated between ${input.desde} and ${input.hasta}.` +
            (input.hasta > today ? ` Values dated after today (${today}) may not be published yet.` : "")
          ]
        })
      }
      return {
        ref: `indicadores.serie:${input.codigo}:${input.desde}:${input.hasta}`,
        codigo: input.codigo,
        nombre: upstream.nombre,
        unidadMedida: upstream.unidad_medida,
        desde: input.desde,
        hasta: input.hasta,
        serie,
        n: serie.length,
        total: round4(total),
        promedio: serie.length === 0 ? null : round4(total / serie.length),
        minimo: serie.length === 0 ? null : Math.min(...valores),
        maximo: serie.length === 0 ? null : Math.max(...valores)
      }
    })
})

export const IndicadoresConnector = connector({
  id: "indicadores",
  label: "Indicadores",
  plan: "free",
  requiresConnection: false,
  tools: [valorObtener, serieObtener]
})
