import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { Perspectiva } from "../../../schema/upstream/Rcv.ts"
import { RcvResource } from "./RcvResource.ts"
import { decodeHistory } from "../../sync/CacheHistory.ts"
import { STATUS_COLUMNS, StatusFields, statusJoins, statusOf } from "../../sync/Coverage.ts"

const TypeRow = Schema.Struct({
  tipoDte: Schema.Number,
  documentos: Schema.Number,
  montoExento: Schema.Number,
  montoNeto: Schema.Number,
  montoIva: Schema.Number,
  montoTotal: Schema.Number
})
const decodeTypes = Schema.decodeUnknown(Schema.Array(TypeRow))

/** A page as one row: its documents as JSON text, where it ended, and the scope's status. */
const PageRow = Schema.Struct({
  documentos: Schema.String,
  filas: Schema.Number,
  ultimo: Schema.NullOr(Schema.Number),
  claves: Schema.NullOr(Schema.Array(Schema.String)),
  ...StatusFields
})
const decodePage = Schema.decodeUnknown(Schema.Array(PageRow))

export interface RcvFilter {
  readonly connectionId: string
  readonly periodo: string
  readonly perspectiva: Perspectiva
  readonly tipoDte?: number
  readonly rut?: string
  readonly estado?: string
  readonly after: number
  readonly limit: number
  /** Return the natural keys of the page's documents too (to read their history). */
  readonly keys: boolean
}

/** A page of documents in the wire form of `CachedRcvDocumento` (not yet checked), with the scope's status. */
export interface RcvPage {
  readonly documentos: ReadonlyArray<unknown>
  readonly keys: ReadonlyArray<string>
  /** The id of the page's last document when more follow. */
  readonly next: number | null
  readonly status: ReturnType<typeof statusOf>
}

/** Reads of the RCV cache: never the upstream. */
export class RcvCache extends Effect.Service<RcvCache>()("brein/connectors/sii/RcvCache", {
  effect: Effect.map(SqlClient.SqlClient, (sql) => {
    /**
     * One statement: the page's documents built as JSON by PostgreSQL in the order and form the
     * answer sends them (absent refs left out), whether more follow, and the scope's coverage and
     * sync under way. ORDER BY names the column: sorting by an alias ignores the index.
     */
    const page = Effect.fn("RcvCache.page")(function* (f: RcvFilter) {
      const [row] = yield* sql`
        SELECT p.documentos, p.filas, p.ultimo, p.claves, ${sql.literal(STATUS_COLUMNS)}
        FROM (SELECT coalesce(string_agg(d.doc, ',' ORDER BY d.id) FILTER (WHERE d.n <= ${f.limit}), '') AS documentos,
                     count(*)::int AS filas,
                     (max(d.id) FILTER (WHERE d.n <= ${f.limit}))::float8 AS ultimo,
                     ${f.keys ? sql`array_agg(d.natural_key ORDER BY d.id) FILTER (WHERE d.n <= ${f.limit})` : sql`NULL::text[]`} AS claves
              FROM (SELECT r.id, r.natural_key, r.doc, row_number() OVER (ORDER BY r.id) AS n
                    FROM (SELECT id, natural_key,
                                 json_strip_nulls(json_build_object(
                                   'tipoDte', tipo_dte, 'folio', folio, 'rutEmisor', rut_emisor, 'rutReceptor', rut_receptor,
                                   'razonSocial', razon_social, 'fechaEmision', to_char(fecha_emision, 'DD/MM/YYYY'),
                                   'montoExento', monto_exento, 'montoNeto', monto_neto, 'montoIva', monto_iva, 'montoTotal', monto_total,
                                   'estado', estado, 'periodo', periodo, 'perspectiva', perspectiva,
                                   'tipoDocRef', tipo_doc_ref, 'folioRef', folio_ref, 'version', version))::text AS doc
                          FROM rcv_documents
                          WHERE connection_id = ${f.connectionId} AND periodo = ${f.periodo} AND perspectiva = ${f.perspectiva} AND id > ${f.after}
                            ${f.tipoDte === undefined ? sql`` : sql`AND tipo_dte = ${f.tipoDte}`}
                            ${f.rut === undefined ? sql`` : sql`AND (rut_emisor = ${f.rut} OR rut_receptor = ${f.rut})`}
                            ${f.estado === undefined ? sql`` : sql`AND estado = ${f.estado}`}
                          ORDER BY rcv_documents.id LIMIT ${f.limit + 1}) r) d) p
        ${statusJoins(sql, f.connectionId, { periodo: f.periodo, perspectiva: f.perspectiva })}`.pipe(
        Effect.flatMap(decodePage),
        Effect.orDie
      )
      if (row === undefined) return yield* Effect.dieMessage("the page statement answered no row")
      const documentos: ReadonlyArray<unknown> = JSON.parse(`[${row.documentos}]`)
      return {
        documentos,
        keys: row.claves ?? [],
        next: row.filas > f.limit ? row.ultimo : null,
        status: statusOf(row)
      } satisfies RcvPage
    })

    const history = Effect.fn("RcvCache.history")(function* (connectionId: string, keys: ReadonlyArray<string>) {
      if (keys.length === 0) return []
      return yield* sql`SELECT natural_key, version, valid_from, valid_to,
                   snapshot || jsonb_build_object('fecha_emision', to_char((snapshot ->> 'fecha_emision')::date, 'DD/MM/YYYY')) AS snapshot
            FROM cache_history
            WHERE connection_id = ${connectionId} AND resource = ${RcvResource.resource} AND natural_key IN ${sql.in(keys)}
            ORDER BY natural_key, version`.pipe(Effect.flatMap(decodeHistory), Effect.orDie)
    })

    const byType = Effect.fn("RcvCache.byType")(function* (connectionId: string, periodo: string, perspectiva: Perspectiva) {
      return yield* sql`SELECT tipo_dte, count(*)::int AS documentos, sum(monto_exento)::float8 AS monto_exento, sum(monto_neto)::float8 AS monto_neto,
                 sum(monto_iva)::float8 AS monto_iva, sum(monto_total)::float8 AS monto_total
          FROM rcv_documents WHERE connection_id = ${connectionId} AND periodo = ${periodo} AND perspectiva = ${perspectiva}
          GROUP BY tipo_dte
          UNION ALL
          SELECT tipo_dte, documentos, monto_exento::float8, monto_neto::float8, monto_iva::float8, monto_total::float8
          FROM rcv_totals WHERE connection_id = ${connectionId} AND periodo = ${periodo} AND perspectiva = ${perspectiva}
          ORDER BY tipo_dte`.pipe(Effect.flatMap(decodeTypes), Effect.orDie)
    })

    return { page, history, byType }
  })
}) {}
