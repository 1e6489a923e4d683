import { Effect, Schema } from "effect"
import { type Account, InstitutionId, type Movement } from "../../../schema/upstream/Banco.ts"
import type { UpstreamSessionExpired } from "../../../schema/upstream/Errors.ts"
import { Periodo } from "../../../schema/upstream/Rcv.ts"
import { type BancoCredentials, type BancoSession, BancoUpstream } from "../../upstream/BancoUpstream.ts"
import { upsertWithHistory } from "../../sync/CacheWriter.ts"
import type { ConnectorSync, SyncContext } from "../../sync/ConnectorSync.ts"
import { CuentasResource, type MovimientoRow, MovimientosResource } from "./BancoResources.ts"
import { monthBounds } from "./Periodo.ts"

export const BancoScope = Schema.Struct({ periodo: Periodo })
const decodeScope = Schema.decodeUnknown(BancoScope)
const decodeInstitution = Schema.decodeUnknown(InstitutionId)

const label = (cuenta: Account) => `${cuenta.name} ···${cuenta.number.slice(-4)}`

/**
 * banco: log in with the institution's user, list the accounts, then read each account's movements
 * posted in the month; persist accounts and movements (with history) through Persist.
 */
export const makeBancoSync = Effect.map(BancoUpstream, (upstream): ConnectorSync => ({
  connector: "banco",
  fetch: ({ job, login, report }: SyncContext) =>
    Effect.gen(function* () {
      const { periodo } = yield* Effect.orDie(decodeScope(job.scope))
      const institution = yield* decodeInstitution(login.institution).pipe(
        Effect.orDieWith(() => `banco connection ${job.connectionId} names no known bank (${login.institution})`)
      )
      const credentials: BancoCredentials = { institution, rut: login.credentials.rut, clave: login.credentials.clave }
      yield* report({ done: 0, total: 0, step: "login" })
      let session: BancoSession = yield* upstream.login(credentials)
      let relogged = false
      // A bank may drop the session mid-read: log in once more (≈ 90 s, and BCI's only session) and go on;
      // a second drop fails the attempt, and the worker retries it later.
      const again = <A, E>(expired: UpstreamSessionExpired, request: (s: BancoSession) => Effect.Effect<A, E>) =>
        relogged
          ? Effect.fail(expired)
          : upstream.login(credentials).pipe(
            Effect.tap((fresh) =>
              Effect.sync(() => {
                session = fresh
                relogged = true
              })
            ),
            Effect.flatMap(request)
          )

      const cuentas = yield* session.cuentas().pipe(Effect.catchTag("UpstreamSessionExpired", (e) => again(e, (s) => s.cuentas())))
      const [desde, hasta] = monthBounds(periodo)
      const read = (s: BancoSession, cuenta: Account) => s.movimientos(cuenta.id, desde, hasta)
      const movimientos: Array<MovimientoRow> = []
      const missing: Array<string> = []
      const keep = (cuenta: Account) => (rows: ReadonlyArray<Movement>) =>
        movimientos.push(...rows.map((m) => ({ ...m, currency: cuenta.currency, periodo })))
      for (const [i, cuenta] of cuentas.entries()) {
        yield* report({ done: i, total: cuentas.length, step: `cuenta ${label(cuenta)}` })
        yield* read(session, cuenta).pipe(
          Effect.catchTag("UpstreamSessionExpired", (e) => again(e, (s) => read(s, cuenta))),
          Effect.map(keep(cuenta)),
          // The other accounts are still worth keeping: the job ends parcial and says which account is missing.
          Effect.catchTags({
            UpstreamPartial: () => Effect.sync(() => missing.push(cuenta.id)),
            BancoAccountNotFound: () => Effect.sync(() => missing.push(cuenta.id))
          })
        )
      }
      yield* report({ done: cuentas.length, total: cuentas.length, step: "guardando" })
      return Effect.gen(function* () {
        const cuentasEscritas = yield* upsertWithHistory(CuentasResource, cuentas, job.id)
        const escritos = yield* upsertWithHistory(MovimientosResource, movimientos, job.id)
        return {
          completo: missing.length === 0,
          counts: {
            cuentas: cuentas.length,
            cuentasSinLeer: missing.length,
            cuentasNuevas: cuentasEscritas.nuevos,
            cuentasCambiadas: cuentasEscritas.cambiados,
            movimientos: movimientos.length,
            ...escritos
          }
        }
      })
    })
}))
