import { Schema } from "effect"
import { FechaDmy } from "./Fecha.ts"
import { Rut } from "./Rut.ts"

/** The RCV replaced the IECV from this period on: there is no RCV before it. */
export const RCV_FIRST_PERIODO = "2017-08"

export const Periodo = Schema.String.pipe(
  Schema.pattern(/^\d{4}-(0[1-9]|1[0-2])$/, { message: () => "must be a period YYYY-MM with month 01-12" })
).annotations({ identifier: "Periodo", description: "Tax period YYYY-MM", examples: ["2026-07"] })
export type Periodo = typeof Periodo.Type

export const Perspectiva = Schema.Literal("ventas", "compras").annotations({
  identifier: "Perspectiva",
  description: "ventas = Registro de Ventas (RV); compras = Registro de Compras (RC)"
})
export type Perspectiva = typeof Perspectiva.Type

export const EstadoRcv = Schema.Literal("registro", "pendiente", "reclamado", "no_incluir").annotations({
  identifier: "EstadoRcv",
  description: "RC section (estadoContable) in lowercase; ventas are always registro"
})
export type EstadoRcv = typeof EstadoRcv.Type

export const TipoDte = Schema.Int.pipe(Schema.between(1, 999)).annotations({
  identifier: "TipoDte",
  description: "SII document type code, kept raw (33 factura, 34 exenta, 61 nota de crédito, ...)"
})
export type TipoDte = typeof TipoDte.Type

export const TIPOS_DTE: Readonly<Record<number, string>> = {
  33: "Factura Electrónica",
  34: "Factura No Afecta o Exenta Electrónica",
  39: "Boleta Electrónica",
  41: "Boleta Exenta Electrónica",
  43: "Liquidación-Factura Electrónica",
  46: "Factura de Compra Electrónica",
  56: "Nota de Débito Electrónica",
  61: "Nota de Crédito Electrónica",
  110: "Factura de Exportación Electrónica",
  111: "Nota de Débito de Exportación Electrónica",
  112: "Nota de Crédito de Exportación Electrónica",
  914: "Declaración de Ingreso (DIN)"
}

const Clp = Schema.Int.annotations({ description: "Integer CLP" })

export const RcvDocumento = Schema.Struct({
  tipoDte: TipoDte,
  folio: Schema.Int.pipe(Schema.between(1, 10_000_000_000)),
  rutEmisor: Rut,
  rutReceptor: Rut,
  razonSocial: Schema.String.annotations({ description: "Name of the counterpart (client in ventas, supplier in compras)" }),
  fechaEmision: FechaDmy,
  montoExento: Clp,
  montoNeto: Clp,
  montoIva: Clp,
  montoTotal: Clp,
  estado: EstadoRcv,
  periodo: Periodo,
  perspectiva: Perspectiva,
  tipoDocRef: Schema.optional(TipoDte),
  folioRef: Schema.optional(Schema.Int)
}).annotations({ identifier: "RcvDocumento", description: "One RCV line as SII lists it in the detail of a period" })
export type RcvDocumento = typeof RcvDocumento.Type

export const RcvResumenTipo = Schema.Struct({
  tipoDte: TipoDte,
  documentos: Schema.NonNegativeInt,
  montoExento: Clp,
  montoNeto: Clp,
  montoIva: Clp,
  montoTotal: Clp,
  soloTotal: Schema.Boolean.annotations({
    description: "true for monthly totals without detail (boletas 39): detalle returns no rows for this type"
  })
}).annotations({ identifier: "RcvResumenTipo" })
export type RcvResumenTipo = typeof RcvResumenTipo.Type

export const RcvResumen = Schema.Struct({
  periodo: Periodo,
  perspectiva: Perspectiva,
  tipos: Schema.Array(RcvResumenTipo)
}).annotations({ identifier: "RcvResumen", description: "Per-document-type counts and totals of a period" })
export type RcvResumen = typeof RcvResumen.Type
