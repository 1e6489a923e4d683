import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { Perspectiva } from "../../../schema/upstream/Rcv.ts"
import { readSnapshot } from "../../Database.ts"
import { decodeHistory } from "../../sync/CacheHistory.ts"
import { type ScopeStatus, STATUS_COLUMNS, statusJoins, statusOfRow } from "../../sync/Coverage.ts"
import { RcvResource } from "./RcvResource.ts"

const TypeRow = Schema.Struct({
  tipoDte: Schema.Number,
  documentos: Schema.Number,
  montoExento: Schema.Number,
  montoNeto: Schema.Number,
  montoIva: Schema.Number,
  montoTotal: Schema.Number
})
const decodeTypes = Schema.decodeUnknown(Schema.Array(TypeRow))

/** A document as the page statement returns it: the wire form's fields, in its order, plus its keys (none on a page of none). */
interface PageRow {
  readonly id: number | null
  readonly naturalKey: string
  readonly tipoDte: unknown
  readonly folio: unknown
  readonly rutEmisor: unknown
  readonly rutReceptor: unknown
  readonly razonSocial: unknown
  readonly fechaEmision: unknown
  readonly montoExento: unknown
  readonly montoNeto: unknown
  readonly montoIva: unknown
  readonly montoTotal: unknown
  readonly estado: unknown
  readonly periodo: unknown
  readonly perspectiva: unknown
  readonly tipoDocRef: unknown
  readonly folioRef: unknown
  readonly version: unknown
}

/** The wire form of `CachedRcvDocumento` (not checked yet): absent refs left out, as encoding leaves them. */
const wireOf = (r: PageRow) => ({
  tipoDte: r.tipoDte,
  folio: r.folio,
  rutEmisor: r.rutEmisor,
  rutReceptor: r.rutReceptor,
  razonSocial: r.razonSocial,
  fechaEmision: r.fechaEmision,
  montoExento: r.montoExento,
  montoNeto: r.montoNeto,
  montoIva: r.montoIva,
  montoTotal: r.montoTotal,
  estado: r.estado,
  periodo: r.periodo,
  perspectiva: r.perspectiva,
  ...(r.tipoDocRef === null ? {} : { tipoDocRef: r.tipoDocRef }),
  ...(r.folioRef === null ? {} : { folioRef: r.folioRef }),
  version: r.version
})

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

/** A page of documents in the wire form of `CachedRcvDocumento` (not checked yet), and its scope's status. */
export interface RcvPage extends ScopeStatus {
  readonly documentos: ReadonlyArray<ReturnType<typeof wireOf>>
  /** Their natural keys, in the same order (to read their history). */
  readonly keys: ReadonlyArray<string>
  /** The id of the page's last document when more follow. */
  readonly next: number | null
}

/** A period's totals per tipoDte (in tipoDte order) and its scope's status. */
export interface RcvSummary extends ScopeStatus {
  readonly tipos: ReadonlyArray<typeof TypeRow.Type>
}

/**
 * The page statement: the page beside its scope's status, which every row carries (a page of none is one
 * row of status alone). ORDER BY names the column, not the float8 alias: sorting by the alias ignores the
 * index. `raw` is a client without transforms: the rows come back under the names the answer uses.
 */
export const pageStatement = (raw: SqlClient.SqlClient, f: RcvFilter) =>
  raw<PageRow>`
    SELECT ${raw.literal(STATUS_COLUMNS)}, p.*
    FROM (SELECT 1) one ${statusJoins(raw, f.connectionId, { periodo: f.periodo, perspectiva: f.perspectiva })}
    LEFT JOIN LATERAL (
      SELECT id::float8 AS id, natural_key AS "naturalKey", tipo_dte AS "tipoDte", folio::float8 AS folio, rut_emisor AS "rutEmisor",
             rut_receptor AS "rutReceptor", razon_social AS "razonSocial", to_char(fecha_emision, 'DD/MM/YYYY') AS "fechaEmision",
             monto_exento::float8 AS "montoExento", monto_neto::float8 AS "montoNeto", monto_iva::float8 AS "montoIva",
             monto_total::float8 AS "montoTotal", estado, periodo, perspectiva, tipo_doc_ref AS "tipoDocRef",
             folio_ref::float8 AS "folioRef", version
      FROM rcv_documents
      WHERE connection_id = ${f.connectionId} AND periodo = ${f.periodo} AND perspectiva = ${f.perspectiva} AND id > ${f.after}
        ${f.tipoDte === undefined ? raw`` : raw`AND tipo_dte = ${f.tipoDte}`}
        ${f.rut === undefined ? raw`` : raw`AND (rut_emisor = ${f.rut} OR rut_receptor = ${f.rut})`}
        ${f.estado === undefined ? raw`` : raw`AND estado = ${f.estado}`}
      ORDER BY rcv_documents.id LIMIT ${f.limit + 1}) p ON true`

/** Reads of the RCV cache: never the upstream. */
export class RcvCache extends Effect.Service<RcvCache>()("brein/connectors/sii/RcvCache", {
  effect: Effect.map(SqlClient.SqlClient, (sql) => {
    // The page's rows come back as pg parses them, under the names the answer uses: no renaming pass.
    const raw = sql.withoutTransforms()
    /** One statement, one round trip (`pageStatement`). */
    const page = Effect.fn("RcvCache.page")(function* (f: RcvFilter) {
      const rows = yield* pageStatement(raw, f).pipe(Effect.orDie)
      const status = yield* statusOfRow(rows[0])
      const found = rows[0]?.id == null ? [] : rows
      const shown = found.length > f.limit ? found.slice(0, f.limit) : found
      return {
        documentos: shown.map(wireOf),
        keys: shown.map((r) => r.naturalKey),
        next: found.length > f.limit ? shown[shown.length - 1]!.id : null,
        ...status
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

    /**
     * The totals per tipoDte of a period (documents and the boletas' daily totals) beside its scope's status, in
     * one statement: the figures and the sync they come from are read in one snapshot, so a summary's `ref` names
     * the sync its figures are of, even while a sync of the period commits.
     */
    const summary = Effect.fn("RcvCache.summary")(function* (connectionId: string, periodo: string, perspectiva: Perspectiva) {
      const rows = yield* raw`
        SELECT ${raw.literal(STATUS_COLUMNS)}, t.*
        FROM (SELECT 1) one ${statusJoins(raw, connectionId, { periodo, perspectiva })}
        LEFT JOIN LATERAL (
          SELECT tipo_dte AS "tipoDte", count(*)::int AS documentos, sum(monto_exento)::float8 AS "montoExento",
                 sum(monto_neto)::float8 AS "montoNeto", sum(monto_iva)::float8 AS "montoIva", sum(monto_total)::float8 AS "montoTotal"
          FROM rcv_documents WHERE connection_id = ${connectionId} AND periodo = ${periodo} AND perspectiva = ${perspectiva}
          GROUP BY tipo_dte
          UNION ALL
          SELECT tipo_dte, documentos, monto_exento::float8, monto_neto::float8, monto_iva::float8, monto_total::float8
          FROM rcv_totals WHERE connection_id = ${connectionId} AND periodo = ${periodo} AND perspectiva = ${perspectiva}) t ON true
        ORDER BY t."tipoDte"`.pipe(Effect.orDie)
      const status = yield* statusOfRow(rows[0])
      const tipos = yield* decodeTypes(rows.filter((row) => row["tipoDte"] != null)).pipe(Effect.orDie)
      return { tipos, ...status } satisfies RcvSummary
    })

    /** Runs a page's read and its history's on one snapshot (Database.readSnapshot). */
    const snapshot = <A, E, R>(reads: Effect.Effect<A, E, R>) => readSnapshot(sql, reads)

    return { page, history, summary, snapshot }
  })
}) {}
