import { Context, Effect, Schema } from "effect"
import type { Scope } from "effect"
import type { Account, AccountId } from "../../schema/upstream/Banco.ts"
import { InstitutionId, type Movement } from "../../schema/upstream/Banco.ts"
import type {
  BancoAccountNotFound,
  UpstreamCredentialsInvalid,
  UpstreamMfaRequired,
  UpstreamMfaTimeout,
  UpstreamPartial,
  UpstreamRateLimited,
  UpstreamSessionExpired,
  UpstreamSessionInUse,
  UpstreamUnavailable
} from "../../schema/upstream/Errors.ts"
import type { Fecha } from "../../schema/upstream/Fecha.ts"
import { Rut } from "../../schema/upstream/Rut.ts"
import type { ScriptedScenario } from "./ScriptedScenario.ts"
import { guarded } from "./SessionGuard.ts"

export const BancoCredentials = Schema.Struct({
  institution: InstitutionId,
  rut: Rut.annotations({ description: "The online-banking user (a RUT in Chilean banks)" }),
  clave: Schema.Redacted(Schema.String).annotations({ description: "Online-banking password; never logged" })
}).annotations({ identifier: "BancoCredentials" })
export type BancoCredentials = typeof BancoCredentials.Type

export type BancoLoginError =
  | UpstreamCredentialsInvalid
  | UpstreamMfaRequired
  | UpstreamMfaTimeout
  | UpstreamSessionInUse
  | UpstreamUnavailable
  | UpstreamRateLimited

export interface BancoSession {
  readonly id: string
  readonly institution: InstitutionId
  readonly rut: Rut
  readonly cuentas: () => Effect.Effect<ReadonlyArray<Account>, UpstreamSessionExpired>
  /** Movements posted in [desde, hasta], oldest first; `balance` is the running balance after each one. */
  readonly movimientos: (
    accountId: AccountId,
    desde: Fecha,
    hasta: Fecha
  ) => Effect.Effect<ReadonlyArray<Movement>, UpstreamSessionExpired | BancoAccountNotFound | UpstreamPartial>
}

/** A bank's online banking. A session lives in the caller's Scope: closing it logs out. */
export class BancoUpstream extends Context.Tag("brein/upstream/BancoUpstream")<
  BancoUpstream,
  {
    readonly login: (credentials: BancoCredentials) => Effect.Effect<BancoSession, BancoLoginError, Scope.Scope>
  }
>() {
  declare readonly "brein/UpstreamClient": true
}

/** The same client with the session guard checked before every login and request. */
export const guardedBanco = (upstream: BancoUpstream["Type"]): BancoUpstream["Type"] =>
  BancoUpstream.of({
    login: Effect.fn("BancoUpstream.login")(function* (credentials: BancoCredentials) {
      yield* Effect.annotateCurrentSpan({ institution: credentials.institution })
      const session = yield* guarded(upstream.login(credentials))
      return {
        ...session,
        cuentas: Effect.fn("BancoUpstream.cuentas")(function* () {
          return yield* guarded(session.cuentas())
        }),
        movimientos: Effect.fn("BancoUpstream.movimientos")(function* (accountId: AccountId, desde: Fecha, hasta: Fecha) {
          return yield* guarded(session.movimientos(accountId, desde, hasta))
        })
      } satisfies BancoSession
    })
  })

/** Failure modes of the simulator, chosen by the exact `clave`; any other clave logs in normally. */
export const BANCO_SCENARIOS = [
  {
    clave: "invalida",
    when: "login",
    effect: "UpstreamCredentialsInvalid (credenciales_invalidas); terminal, the user must replace the credentials"
  },
  { clave: "mfa", when: "login", effect: "UpstreamMfaRequired (mfa_requerido): the bank wants a second factor the user must approve" },
  { clave: "mfa_aprobada", when: "login", effect: "push approval: waits mfaWaitMs (30 s × timeScale) after the login, then succeeds" },
  { clave: "mfa_timeout", when: "login", effect: "waits mfaTimeoutMs (120 s × timeScale), then UpstreamMfaTimeout (mfa_timeout)" },
  { clave: "en_uso", when: "login", effect: "UpstreamSessionInUse (sesion_en_uso): the user is logged in elsewhere (web or app)" },
  { clave: "no_disponible", when: "login", effect: "UpstreamUnavailable (upstream_no_disponible), retryAfterSeconds 300" },
  { clave: "limite", when: "login", effect: "UpstreamRateLimited (limite_de_tasa), retryAfterSeconds 300" },
  {
    clave: "expira",
    when: "2nd request of a session",
    effect: "UpstreamSessionExpired (sesion_expirada) once per institution+RUT and simulator; the session is gone, log in again"
  },
  {
    clave: "parcial",
    when: "movimientos",
    effect: "UpstreamPartial (sincronizacion_parcial) for the last account listed, every time; other accounts succeed"
  }
] as const satisfies ReadonlyArray<ScriptedScenario>

export type BancoScenario = (typeof BANCO_SCENARIOS)[number]["clave"] | "normal"

export interface BancoLatency {
  readonly loginMs: number
  readonly loginJitterMs: number
  readonly mfaWaitMs: number
  readonly mfaTimeoutMs: number
  readonly accountsMs: number
  readonly pageMs: number
}

export const BANCO_LATENCY: BancoLatency = {
  loginMs: 90_000,
  loginJitterMs: 15_000,
  mfaWaitMs: 30_000,
  mfaTimeoutMs: 120_000,
  accountsMs: 3_000,
  pageMs: 3_000
}
