import { Effect, Schema, Scope } from "effect"
import type { MissingPart } from "../../../schema/connections/SyncJob.ts"
import { type Account, InstitutionId, type Movement } from "../../../schema/upstream/Banco.ts"
import type { UpstreamSessionExpired } from "../../../schema/upstream/Errors.ts"
import { Periodo } from "../../../schema/upstream/Rcv.ts"
import type { OpenedCredentials } from "../../connections/Connections.ts"
import { upsertWithHistory } from "../../sync/CacheWriter.ts"
import type { ConnectorSync, SyncContext } from "../../sync/ConnectorSync.ts"
import { type BancoCredentials, type BancoSession, BancoUpstream } from "../../upstream/BancoUpstream.ts"
import { CuentasResource, type MovimientoRow, MovimientosResource } from "./BancoResources.ts"
import { monthBounds } from "./Periodo.ts"

export const BancoScope = Schema.Struct({ periodo: Periodo })
const decodeScope = Schema.decodeUnknown(BancoScope)
const decodeInstitution = Schema.decodeUnknown(InstitutionId)
const STEPS = 4

const label = (cuenta: Account) => `${cuenta.name} ···${cuenta.number.slice(-4)}`

/**
 * banco: log in with the institution's user once; per period list the accounts, then read each
 * account's movements posted in the month; persist accounts and movements (with history) through Persist.
 */
export const makeBancoSync = Effect.map(BancoUpstream, (upstream): ConnectorSync => ({
  connector: "banco",
  steps: STEPS,
  login: Effect.fn("BancoSync.login")(function* (login: OpenedCredentials) {
    const institution = yield* decodeInstitution(login.institution).pipe(
      Effect.orDieWith(() => `banco connection names no known bank (${login.institution})`)
    )
    const credentials: BancoCredentials = { institution, rut: login.credentials.rut, clave: login.credentials.clave }
    const scope = yield* Effect.scope
    let session: BancoSession = yield* upstream.login(credentials)
    let relogged = false
    // A bank may drop the session mid-read: log in once more (≈ 90 s, and BCI's only session) and go on;
    // a second drop fails the job, and the worker retries it later.
    // The job's step says "login" again while it happens, so whoever follows the job sees the re-login.
    const again = <A, E>(
      announce: Effect.Effect<unknown>,
      expired: UpstreamSessionExpired,
      request: (s: BancoSession) => Effect.Effect<A, E>
    ) =>
      relogged
        ? Effect.fail(expired)
        : Effect.logInfo("bank session expired: logging in again").pipe(
          Effect.zipRight(announce),
          Effect.zipRight(Scope.extend(upstream.login(credentials), scope)),
          Effect.tap((fresh) =>
            Effect.sync(() => {
              session = fresh
              relogged = true
            })
          ),
          Effect.flatMap(request)
        )

    const read = Effect.fn("BancoSync.read")(function* ({ job, report }: SyncContext) {
      const { periodo } = yield* Effect.orDie(decodeScope(job.scope))
      const loginAgain = (done: number) => report({ done, total: STEPS, step: "login" })
      yield* report({ done: 1, total: STEPS, step: "cuentas" })
      const cuentas = yield* session.cuentas().pipe(
        Effect.catchTag("UpstreamSessionExpired", (e) => again(loginAgain(1), e, (s) => s.cuentas()))
      )
      const [desde, hasta] = monthBounds(periodo)
      const movimientosOf = (s: BancoSession, cuenta: Account) => s.movimientos(cuenta.id, desde, hasta)
      const movimientos: Array<MovimientoRow> = []
      const missing: Array<MissingPart> = []
      const keep = (cuenta: Account) => (rows: ReadonlyArray<Movement>) =>
        movimientos.push(...rows.map((m) => ({ ...m, currency: cuenta.currency, periodo })))
      const skip = (cuenta: Account, reason: string) =>
        Effect.sync(() => missing.push({ recurso: cuenta.id, cuenta: label(cuenta), reason }))
      for (const [i, cuenta] of cuentas.entries()) {
        yield* report({ done: 2, total: STEPS, step: `cuenta ${label(cuenta)} (${i + 1}/${cuentas.length})` })
        yield* movimientosOf(session, cuenta).pipe(
          Effect.catchTag("UpstreamSessionExpired", (e) => again(loginAgain(2), e, (s) => movimientosOf(s, cuenta))),
          Effect.map(keep(cuenta)),
          // The other accounts are still worth keeping: the job ends parcial and says which account is missing.
          Effect.catchTags({
            UpstreamPartial: (e) => skip(cuenta, e.message),
            BancoAccountNotFound: (e) => skip(cuenta, e.message)
          })
        )
      }
      yield* report({ done: 3, total: STEPS, step: "guardando" })
      return Effect.gen(function* () {
        const cuentasEscritas = yield* upsertWithHistory(CuentasResource, cuentas, job.id)
        const escritos = yield* upsertWithHistory(MovimientosResource, movimientos, job.id)
        return {
          missing: missing.length === 0 ? null : {
            message: `the movements of ${missing.length} of ${cuentas.length} accounts could not be read: ${
              missing.map((m) => m.cuenta).join(", ")
            }; the others are kept`,
            parts: missing
          },
          counts: {
            cuentas: cuentas.length,
            cuentasSinLeer: missing.length,
            cuentasNuevas: cuentasEscritas.nuevos,
            cuentasCambiadas: cuentasEscritas.cambiados,
            movimientos: movimientos.length,
            ...escritos
          }
        }
      }).pipe(Effect.withSpan("BancoSync.write"))
    })
    return { read }
  })
}))
