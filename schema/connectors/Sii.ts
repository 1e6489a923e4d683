import { Schema } from "effect"
import { EstadoRcv, Periodo, Perspectiva, RcvDocumento, TipoDte } from "../upstream/Rcv.ts"
import { Rut } from "../upstream/Rut.ts"
import { Cursor, EnCurso, Esperar, Limit, Sincronizacion } from "./Sync.ts"

export const SiiSyncInput = Schema.Struct({
  periodo: Periodo,
  perspectiva: Schema.optionalWith(Perspectiva, { exact: true }).annotations({ description: "Both when omitted" }),
  esperar: Schema.optionalWith(Esperar, { default: () => 25 })
})

export const RcvQueryInput = Schema.Struct({
  periodo: Periodo,
  perspectiva: Perspectiva,
  tipoDte: Schema.optionalWith(TipoDte, { exact: true }),
  rut: Schema.optionalWith(Rut, { exact: true }).annotations({ description: "Emisor or receptor" }),
  estado: Schema.optionalWith(EstadoRcv, { exact: true }),
  incluirHistorial: Schema.optionalWith(Schema.Boolean, { default: () => false }).annotations({
    description: "Add each document's earlier versions (what changed between syncs)"
  }),
  limit: Schema.optionalWith(Limit, { default: () => 100 }),
  cursor: Schema.optionalWith(Cursor, { exact: true })
})

export const Version = Schema.Struct({
  version: Schema.Int,
  vigenteDesde: Schema.String,
  vigenteHasta: Schema.String,
  valores: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

export const CachedRcvDocumento = Schema.Struct({
  ...RcvDocumento.fields,
  version: Schema.Int.annotations({ description: "1 + the number of times a sync saw it change" }),
  historial: Schema.optional(Schema.Array(Version))
})

export const RcvQueryOutput = Schema.Struct({
  documentos: Schema.Array(CachedRcvDocumento),
  cursor: Schema.NullOr(Schema.String),
  sincronizacion: Sincronizacion,
  sincronizacionEnCurso: EnCurso
})

export const RcvSummaryInput = Schema.Struct({ periodo: Periodo, perspectiva: Perspectiva })

const Montos = Schema.Struct({ montoExento: Schema.Number, montoNeto: Schema.Number, montoIva: Schema.Number, montoTotal: Schema.Number })

export const RcvSummaryOutput = Schema.Struct({
  ref: Schema.String.annotations({ description: "Cite figures of this answer with this ref" }),
  porTipo: Schema.Array(
    Schema.Struct({ tipoDte: Schema.Int, nombre: Schema.String, documentos: Schema.Int, total: Montos, promedio: Montos })
  ),
  total: Schema.Struct({ documentos: Schema.Int, ...Montos.fields }).annotations({
    description: "All types; credit notes (61, 112) subtract"
  }),
  promedio: Montos.annotations({ description: "Average per document over all types (credit notes subtract)" }),
  sincronizacion: Sincronizacion,
  sincronizacionEnCurso: EnCurso
})
