import { Effect, Schema, Scope } from "effect"
import type { MissingPart } from "../../../schema/connections/SyncJob.ts"
import { Periodo, Perspectiva, type RcvDocumento, type TipoDte, TIPOS_DTE } from "../../../schema/upstream/Rcv.ts"
import type { OpenedCredentials } from "../../connections/Connections.ts"
import { upsertWithHistory } from "../../sync/CacheWriter.ts"
import type { ConnectorSync, SyncContext } from "../../sync/ConnectorSync.ts"
import { type SiiSession, SiiUpstream } from "../../upstream/SiiUpstream.ts"
import { RcvResource } from "./RcvResource.ts"
import { replaceTotals } from "./RcvTotals.ts"

export const SiiScope = Schema.Struct({ periodo: Periodo, perspectiva: Perspectiva })
const decodeScope = Schema.decodeUnknown(SiiScope)
const STEPS = 4

const nameOf = (tipo: number) => `tipoDte ${tipo}${TIPOS_DTE[tipo] === undefined ? "" : ` (${TIPOS_DTE[tipo]})`}`

/** sii: log in with RUT + clave once; per scope read the resumen, then the detail of every type; persist through Persist. */
export const makeSiiSync = Effect.map(SiiUpstream, (upstream): ConnectorSync => ({
  connector: "sii",
  steps: STEPS,
  login: Effect.fn("SiiSync.login")(function* (login: OpenedCredentials) {
    const credentials = { rut: login.credentials.rut, clave: login.credentials.clave }
    const scope = yield* Effect.scope
    let session: SiiSession = yield* upstream.login(credentials)
    // SII drops portal sessions without warning ("NO ESTA AUTENTICADO"): log in once more and go on.
    // The job's step says "login" again while it happens, so whoever follows the job sees the re-login.
    const relogin = (announce: Effect.Effect<unknown>) =>
      Effect.logInfo("SII session expired: logging in again").pipe(
        Effect.zipRight(announce),
        Effect.zipRight(Scope.extend(upstream.login(credentials), scope)),
        Effect.tap((fresh) => Effect.sync(() => (session = fresh)))
      )
    const read = Effect.fn("SiiSync.read")(function* ({ job, report }: SyncContext) {
      const { periodo, perspectiva } = yield* Effect.orDie(decodeScope(job.scope))
      const loginAgain = (done: number) => report({ done, total: STEPS, step: "login" })
      yield* report({ done: 1, total: STEPS, step: "resumen" })
      const resumen = yield* session.resumen(periodo, perspectiva).pipe(
        Effect.catchTag("UpstreamSessionExpired", () => Effect.flatMap(relogin(loginAgain(1)), (s) => s.resumen(periodo, perspectiva))),
        Effect.catchTag("RcvPeriodOutOfRange", "UpstreamSessionExpired", (e) => Effect.dieMessage(e.message))
      )
      const detalle = (tipo: TipoDte) =>
        session.detalle(periodo, perspectiva, tipo).pipe(
          Effect.catchTag("UpstreamSessionExpired", () =>
            Effect.flatMap(relogin(loginAgain(2)), (s) => s.detalle(periodo, perspectiva, tipo))),
          Effect.catchTag("RcvPeriodOutOfRange", "UpstreamSessionExpired", (e) =>
            Effect.dieMessage(e.message))
        )
      const tipos = resumen.tipos.filter((t) => !t.soloTotal && t.documentos > 0)
      const documentos: Array<RcvDocumento> = []
      const counts: Record<string, number> = {}
      const missing: Array<MissingPart> = []
      for (const [i, tipo] of tipos.entries()) {
        yield* report({ done: 2, total: STEPS, step: `tipoDte ${tipo.tipoDte} (${i + 1}/${tipos.length})` })
        const rows = yield* detalle(tipo.tipoDte).pipe(
          Effect.catchTag(
            "UpstreamPartial",
            (e) => Effect.as(Effect.sync(() => missing.push({ recurso: e.recurso, tipoDte: tipo.tipoDte, reason: e.message })), null)
          )
        )
        if (rows === null) continue
        documentos.push(...rows)
        counts[`tipoDte_${tipo.tipoDte}`] = rows.length
      }
      yield* report({ done: 3, total: STEPS, step: "guardando" })
      // Boletas (39, 41) exist in the RCV only as monthly totals: keep them, or the period's summary misses them.
      const totals = resumen.tipos.filter((t) => t.soloTotal)
      const write = Effect.zipRight(replaceTotals(periodo, perspectiva, totals), upsertWithHistory(RcvResource, documentos, job.id))
      return Effect.map(write, (written) => ({
        missing: missing.length === 0 ? null : {
          message: `${missing.length} of ${tipos.length} document types could not be read: ${
            missing.map((m) => nameOf(m.tipoDte ?? 0)).join(", ")
          }; the others are kept`,
          parts: missing
        },
        counts: {
          ...counts,
          ...Object.fromEntries(totals.map((t) => [`soloTotal_${t.tipoDte}`, t.documentos])),
          documentos: documentos.length,
          ...written
        }
      })).pipe(Effect.withSpan("SiiSync.write"))
    })
    return { read }
  })
}))
