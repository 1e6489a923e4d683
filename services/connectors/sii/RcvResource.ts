import type { RcvDocumento } from "../../../schema/upstream/Rcv.ts"
import type { CachedResource } from "../../sync/CacheWriter.ts"

const isoDate = (dmy: string) => {
  const [d, m, y] = dmy.split("/")
  return `${y}-${m}-${d}`
}

/** RCV documents as cached: one row per (perspectiva, tipoDte, folio, emisor) of a connection. */
export const RcvResource: CachedResource<RcvDocumento> = {
  resource: "sii.rcv",
  table: "rcv_documents",
  columns: [
    { name: "periodo", type: "text" },
    { name: "perspectiva", type: "text" },
    { name: "tipo_dte", type: "int" },
    { name: "folio", type: "bigint" },
    { name: "rut_emisor", type: "text" },
    { name: "rut_receptor", type: "text" },
    { name: "razon_social", type: "text" },
    { name: "fecha_emision", type: "date" },
    { name: "monto_exento", type: "bigint" },
    { name: "monto_neto", type: "bigint" },
    { name: "monto_iva", type: "bigint" },
    { name: "monto_total", type: "bigint" },
    { name: "estado", type: "text" },
    { name: "tipo_doc_ref", type: "int" },
    { name: "folio_ref", type: "bigint" }
  ],
  naturalKey: (d) => `${d.perspectiva}|${d.tipoDte}|${d.folio}|${d.rutEmisor}`,
  values: (d) => [
    d.periodo,
    d.perspectiva,
    d.tipoDte,
    d.folio,
    d.rutEmisor,
    d.rutReceptor,
    d.razonSocial,
    isoDate(d.fechaEmision),
    d.montoExento,
    d.montoNeto,
    d.montoIva,
    d.montoTotal,
    d.estado,
    d.tipoDocRef ?? null,
    d.folioRef ?? null
  ]
}
