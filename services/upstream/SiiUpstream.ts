import { Context, Effect, Schema } from "effect"
import type { Scope } from "effect"
import type {
  RcvPeriodOutOfRange,
  UpstreamCredentialsInvalid,
  UpstreamPartial,
  UpstreamRateLimited,
  UpstreamSessionExpired,
  UpstreamSessionInUse,
  UpstreamUnavailable
} from "../../schema/upstream/Errors.ts"
import type { Periodo, Perspectiva, RcvDocumento, RcvResumen, TipoDte } from "../../schema/upstream/Rcv.ts"
import { Rut } from "../../schema/upstream/Rut.ts"
import type { ScriptedScenario } from "./ScriptedScenario.ts"
import { guarded } from "./SessionGuard.ts"

export const SiiCredentials = Schema.Struct({
  rut: Rut,
  clave: Schema.Redacted(Schema.String).annotations({ description: "Clave tributaria; never logged" })
}).annotations({ identifier: "SiiCredentials" })
export type SiiCredentials = typeof SiiCredentials.Type

export type SiiLoginError = UpstreamCredentialsInvalid | UpstreamUnavailable | UpstreamSessionInUse | UpstreamRateLimited

export type SiiRequestError = UpstreamSessionExpired | RcvPeriodOutOfRange

export interface SiiSession {
  readonly id: string
  readonly rut: Rut
  readonly resumen: (periodo: Periodo, perspectiva: Perspectiva) => Effect.Effect<RcvResumen, SiiRequestError>
  /** Rows of one document type; call it for every type the resumen lists (soloTotal types have no rows). */
  readonly detalle: (
    periodo: Periodo,
    perspectiva: Perspectiva,
    tipoDte: TipoDte
  ) => Effect.Effect<ReadonlyArray<RcvDocumento>, SiiRequestError | UpstreamPartial>
}

/** SII portal (RUT + clave tributaria). A session lives in the caller's Scope: closing it logs out. */
export class SiiUpstream extends Context.Tag("brein/upstream/SiiUpstream")<
  SiiUpstream,
  {
    readonly login: (credentials: SiiCredentials) => Effect.Effect<SiiSession, SiiLoginError, Scope.Scope>
  }
>() {
  declare readonly "brein/UpstreamClient": true
}

/** The same client with the session guard checked before every login and request. */
export const guardedSii = (upstream: SiiUpstream["Type"]): SiiUpstream["Type"] =>
  SiiUpstream.of({
    login: Effect.fn("SiiUpstream.login")(function* (credentials: SiiCredentials) {
      const session = yield* guarded(upstream.login(credentials))
      return {
        ...session,
        resumen: Effect.fn("SiiUpstream.resumen")(function* (periodo: Periodo, perspectiva: Perspectiva) {
          yield* Effect.annotateCurrentSpan({ periodo, perspectiva })
          return yield* guarded(session.resumen(periodo, perspectiva))
        }),
        detalle: Effect.fn("SiiUpstream.detalle")(function* (periodo: Periodo, perspectiva: Perspectiva, tipoDte: TipoDte) {
          yield* Effect.annotateCurrentSpan({ periodo, perspectiva, tipoDte })
          return yield* guarded(session.detalle(periodo, perspectiva, tipoDte))
        })
      } satisfies SiiSession
    })
  })

/** Failure modes of the simulator, chosen by the exact `clave`; any other clave logs in normally. */
export const SII_SCENARIOS = [
  { clave: "invalida", when: "login", effect: "UpstreamCredentialsInvalid (credenciales_invalidas); terminal, do not retry" },
  { clave: "no_disponible", when: "login", effect: "UpstreamUnavailable (upstream_no_disponible), retryAfterSeconds 300" },
  { clave: "en_uso", when: "login", effect: "UpstreamSessionInUse (sesion_en_uso): someone else holds the RUT's session" },
  { clave: "limite", when: "login", effect: "UpstreamRateLimited (limite_de_tasa), retryAfterSeconds 300" },
  {
    clave: "expira",
    when: "2nd request of a session",
    effect: "UpstreamSessionExpired (sesion_expirada) once per RUT and simulator; log in again and continue"
  },
  {
    clave: "parcial",
    when: "detalle",
    effect: "UpstreamPartial (sincronizacion_parcial) for the highest tipoDte with detail in that period, every time; the rest succeeds"
  },
  {
    clave: "cambia",
    when: "2nd and later logins of the RUT",
    effect:
      "a fixed set of documents (the first of each period and ≈ 15 % of the others) shows a 10 % higher amount, and in compras estado reclamado"
  }
] as const satisfies ReadonlyArray<ScriptedScenario>

export type SiiScenario = (typeof SII_SCENARIOS)[number]["clave"] | "normal"

export interface SiiLatency {
  readonly loginMs: number
  readonly loginMinMs: number
  readonly loginMaxMs: number
  readonly rcvInitMs: number
  readonly requestSpacingMs: number
}

export const SII_LATENCY: SiiLatency = {
  loginMs: 20_000,
  loginMinMs: 8_000,
  loginMaxMs: 45_000,
  rcvInitMs: 3_000,
  requestSpacingMs: 2_000
}
