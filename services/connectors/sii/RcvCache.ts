import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { type Perspectiva, RcvDocumento, TipoDte } from "../../../schema/upstream/Rcv.ts"
import { RutCanonical } from "../../../schema/upstream/Rut.ts"
import { RcvResource } from "./RcvResource.ts"
import { decodeHistory } from "../../sync/CacheHistory.ts"

const DocRow = Schema.Struct({
  id: Schema.Number,
  naturalKey: Schema.String,
  version: Schema.Number,
  ...RcvDocumento.fields,
  // The cache holds canonical RUTs (they were decoded on the way in): check them, do not re-parse them.
  rutEmisor: RutCanonical,
  rutReceptor: RutCanonical,
  tipoDocRef: Schema.NullOr(TipoDte),
  folioRef: Schema.NullOr(Schema.Number)
})
export type DocRow = typeof DocRow.Type
const decodeDocs = Schema.decodeUnknown(Schema.Array(DocRow))


const TypeRow = Schema.Struct({
  tipoDte: Schema.Number,
  documentos: Schema.Number,
  montoExento: Schema.Number,
  montoNeto: Schema.Number,
  montoIva: Schema.Number,
  montoTotal: Schema.Number
})
const decodeTypes = Schema.decodeUnknown(Schema.Array(TypeRow))

export interface RcvFilter {
  readonly connectionId: string
  readonly periodo: string
  readonly perspectiva: Perspectiva
  readonly tipoDte?: number
  readonly rut?: string
  readonly estado?: string
  readonly after: number
  readonly limit: number
}

/** Reads of the RCV cache: never the upstream. */
export class RcvCache extends Effect.Service<RcvCache>()("brein/connectors/sii/RcvCache", {
  effect: Effect.map(SqlClient.SqlClient, (sql) => {
    // ORDER BY names the column, not the float8 alias: sorting by the alias ignores the index and
    // sorts the whole scope (7 ms instead of 0.1 ms on a 1 M-row cache).
    const page = (f: RcvFilter) =>
      sql`SELECT id::float8 AS id, natural_key, tipo_dte, folio::float8 AS folio, rut_emisor, rut_receptor, razon_social,
                 to_char(fecha_emision, 'DD/MM/YYYY') AS fecha_emision, monto_exento::float8 AS monto_exento,
                 monto_neto::float8 AS monto_neto, monto_iva::float8 AS monto_iva, monto_total::float8 AS monto_total,
                 estado, periodo, perspectiva, tipo_doc_ref, folio_ref::float8 AS folio_ref, version
          FROM rcv_documents
          WHERE connection_id = ${f.connectionId} AND periodo = ${f.periodo} AND perspectiva = ${f.perspectiva} AND id > ${f.after}
            ${f.tipoDte === undefined ? sql`` : sql`AND tipo_dte = ${f.tipoDte}`}
            ${f.rut === undefined ? sql`` : sql`AND (rut_emisor = ${f.rut} OR rut_receptor = ${f.rut})`}
            ${f.estado === undefined ? sql`` : sql`AND estado = ${f.estado}`}
          ORDER BY rcv_documents.id LIMIT ${f.limit + 1}`.pipe(Effect.flatMap(decodeDocs), Effect.orDie)

    const history = (connectionId: string, keys: ReadonlyArray<string>) =>
      keys.length === 0
        ? Effect.succeed([])
        : sql`SELECT natural_key, version, valid_from, valid_to,
                     snapshot || jsonb_build_object('fecha_emision', to_char((snapshot ->> 'fecha_emision')::date, 'DD/MM/YYYY')) AS snapshot
              FROM cache_history
              WHERE connection_id = ${connectionId} AND resource = ${RcvResource.resource} AND natural_key IN ${sql.in(keys)}
              ORDER BY natural_key, version`.pipe(Effect.flatMap(decodeHistory), Effect.orDie)

    const byType = (connectionId: string, periodo: string, perspectiva: Perspectiva) =>
      sql`SELECT tipo_dte, count(*)::int AS documentos, sum(monto_exento)::float8 AS monto_exento, sum(monto_neto)::float8 AS monto_neto,
                 sum(monto_iva)::float8 AS monto_iva, sum(monto_total)::float8 AS monto_total
          FROM rcv_documents WHERE connection_id = ${connectionId} AND periodo = ${periodo} AND perspectiva = ${perspectiva}
          GROUP BY tipo_dte
          UNION ALL
          SELECT tipo_dte, documentos, monto_exento::float8, monto_neto::float8, monto_iva::float8, monto_total::float8
          FROM rcv_totals WHERE connection_id = ${connectionId} AND periodo = ${periodo} AND perspectiva = ${perspectiva}
          ORDER BY tipo_dte`.pipe(Effect.flatMap(decodeTypes), Effect.orDie)

    return { page, history, byType }
  })
}) {}
