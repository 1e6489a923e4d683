import { Effect, Schema } from "effect"
import { Periodo, Perspectiva, type RcvDocumento, type TipoDte } from "../../../schema/upstream/Rcv.ts"
import { type SiiSession, SiiUpstream } from "../../upstream/SiiUpstream.ts"
import { upsertWithHistory } from "../../sync/CacheWriter.ts"
import { replaceTotals } from "./RcvTotals.ts"
import type { ConnectorSync, SyncContext } from "../../sync/ConnectorSync.ts"
import { RcvResource } from "./RcvResource.ts"

export const SiiScope = Schema.Struct({ periodo: Periodo, perspectiva: Perspectiva })
const decodeScope = Schema.decodeUnknown(SiiScope)

/** sii: log in with RUT + clave, read the resumen, then the detail of every type; persist through Persist. */
export const makeSiiSync = Effect.map(SiiUpstream, (upstream): ConnectorSync => ({
  connector: "sii",
  fetch: ({ job, login, report }: SyncContext) =>
    Effect.gen(function* () {
      const { periodo, perspectiva } = yield* Effect.orDie(decodeScope(job.scope))
      const credentials = { rut: login.credentials.rut, clave: login.credentials.clave }
      let session: SiiSession = yield* upstream.login(credentials)
      // SII drops portal sessions without warning ("NO ESTA AUTENTICADO"): log in once more and go on.
      const relogin = Effect.tap(upstream.login(credentials), (fresh) => Effect.sync(() => (session = fresh)))
      const resumen = yield* session.resumen(periodo, perspectiva).pipe(
        Effect.catchTag("UpstreamSessionExpired", () => Effect.flatMap(relogin, (s) => s.resumen(periodo, perspectiva))),
        Effect.catchTag("RcvPeriodOutOfRange", "UpstreamSessionExpired", (e) => Effect.dieMessage(e.message))
      )
      const detalle = (tipo: TipoDte) =>
        session.detalle(periodo, perspectiva, tipo).pipe(
          Effect.catchTag("UpstreamSessionExpired", () => Effect.flatMap(relogin, (s) => s.detalle(periodo, perspectiva, tipo))),
          Effect.catchTag("RcvPeriodOutOfRange", "UpstreamSessionExpired", (e) => Effect.dieMessage(e.message))
        )
      const tipos = resumen.tipos.filter((t) => !t.soloTotal && t.documentos > 0)
      const documentos: Array<RcvDocumento> = []
      const counts: Record<string, number> = {}
      const missing: Array<string> = []
      for (const [i, tipo] of tipos.entries()) {
        yield* report({ done: i, total: tipos.length, step: `tipoDte ${tipo.tipoDte}` })
        const rows = yield* detalle(tipo.tipoDte).pipe(
          Effect.catchTag("UpstreamPartial", (e) => Effect.as(Effect.sync(() => missing.push(e.recurso)), []))
        )
        documentos.push(...rows)
        counts[`tipoDte_${tipo.tipoDte}`] = rows.length
      }
      yield* report({ done: tipos.length, total: tipos.length, step: "guardando" })
      // Boletas (39, 41) exist in the RCV only as monthly totals: keep them, or the period's summary misses them.
      const totals = resumen.tipos.filter((t) => t.soloTotal)
      const write = Effect.zipRight(replaceTotals(periodo, perspectiva, totals), upsertWithHistory(RcvResource, documentos, job.id))
      return Effect.map(write, (written) => ({
        completo: missing.length === 0,
        counts: { ...counts, ...Object.fromEntries(totals.map((t) => [`soloTotal_${t.tipoDte}`, t.documentos])), documentos: documentos.length, ...written }
      }))
    })
}))
