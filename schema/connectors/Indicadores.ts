import { Schema } from "effect"
import { Fecha } from "../upstream/Fecha.ts"
import { IndicadorCodigo, UnidadMedida } from "../upstream/Indicador.ts"

export const MAX_SERIE_DIAS = 366

const epochDay = (fecha: string) =>
  Date.UTC(Number(fecha.slice(0, 4)), Number(fecha.slice(5, 7)) - 1, Number(fecha.slice(8, 10))) / 86_400_000

/** Calendar days from `desde` to `hasta`, both included. */
export const diasEntre = (desde: string, hasta: string) => epochDay(hasta) - epochDay(desde) + 1

const Codigo = IndicadorCodigo.annotations({
  description: "The indicator (mindicador.cl code)",
  message: () => ({ message: `must be one of ${IndicadorCodigo.literals.join(", ")}`, override: true })
})

const described = <A, I>(schema: Schema.Schema<A, I>, description: string) => Schema.propertySignature(schema).annotations({ description })

const Nombre = described(Schema.String, "The indicator's name as the source serves it")

const Unidad = described(UnidadMedida, "Pesos (CLP), Porcentaje or Dólar (USD: libra_cobre, bitcoin)")

export const ValorObtenerInput = Schema.Struct({
  codigo: Codigo,
  fecha: Schema.optionalWith(Fecha, { exact: true }).annotations({
    description: "The date whose value in force you want; today in America/Santiago when omitted"
  })
})

export const ValorObtenerOutput = Schema.Struct({
  codigo: IndicadorCodigo,
  nombre: Nombre,
  unidadMedida: Unidad,
  fecha: described(
    Fecha,
    "The value's own date: the asked date, or the last one before it for indicators not published that day"
  ),
  valor: Schema.Number
})

export const SerieObtenerInput = Schema.Struct({
  codigo: Codigo,
  desde: described(Fecha, "First date of the range (included)"),
  hasta: described(Fecha, `Last date of the range (included); the range spans at most ${MAX_SERIE_DIAS} days`)
}).pipe(
  Schema.filter((input) => {
    if (input.hasta < input.desde) return { path: ["hasta"], message: "must not be before desde" }
    const dias = diasEntre(input.desde, input.hasta)
    return dias <= MAX_SERIE_DIAS || { path: ["hasta"], message: `makes a range of ${dias} days from desde; at most ${MAX_SERIE_DIAS}` }
  })
)

const Decimal = Schema.NullOr(Schema.Number)

export const SerieObtenerOutput = Schema.Struct({
  ref: Schema.String.annotations({ description: "Cite figures of this answer with this ref" }),
  codigo: IndicadorCodigo,
  nombre: Nombre,
  unidadMedida: Unidad,
  desde: Fecha,
  hasta: Fecha,
  serie: described(
    Schema.Array(Schema.Struct({ fecha: Fecha, valor: Schema.Number })),
    "Every published value dated in the range, oldest first (business-day and monthly indicators skip dates)"
  ),
  n: described(Schema.Int, "How many values the series has"),
  total: described(Schema.Number, "Sum of the values (rounded to 4 decimals)"),
  promedio: described(Decimal, "Average of the values (rounded to 4 decimals); null when n = 0"),
  minimo: described(Decimal, "Smallest value; null when n = 0"),
  maximo: described(Decimal, "Largest value; null when n = 0")
})

export const indicadoresHints = { readOnly: true, destructive: false, idempotent: true, openWorld: true } as const
