import { Effect } from "effect"
import type { Periodo, Perspectiva, RcvResumenTipo } from "../../../schema/upstream/Rcv.ts"
import { Persist } from "../../tools/Persist.ts"

/** The types SII reports only as a total for the period (boletas): replaced as a whole on every sync. */
export const replaceTotals = Effect.fn("RcvTotals.replace")(
  function* (periodo: Periodo, perspectiva: Perspectiva, totals: ReadonlyArray<RcvResumenTipo>) {
    const { sql, connectionId } = yield* Persist
    yield* sql`DELETE FROM rcv_totals WHERE connection_id = ${connectionId} AND periodo = ${periodo} AND perspectiva = ${perspectiva}`
    if (totals.length === 0) return
    yield* sql`INSERT INTO rcv_totals ${
      sql.insert(totals.map((t) => ({
        connectionId,
        periodo,
        perspectiva,
        tipoDte: t.tipoDte,
        documentos: t.documentos,
        montoExento: t.montoExento,
        montoNeto: t.montoNeto,
        montoIva: t.montoIva,
        montoTotal: t.montoTotal,
        syncedAt: new Date()
      })))
    }`
  },
  Effect.orDie
)
