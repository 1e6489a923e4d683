import { type ConfigError, Context, Effect, HashMap, HashSet, Layer, Option, Redacted, Ref } from "effect"
import {
  RcvPeriodOutOfRange,
  UpstreamCredentialsInvalid,
  UpstreamPartial,
  UpstreamRateLimited,
  UpstreamSessionExpired,
  UpstreamSessionInUse,
  UpstreamUnavailable
} from "../../schema/upstream/Errors.ts"
import type { Periodo, RcvDocumento } from "../../schema/upstream/Rcv.ts"
import { RCV_FIRST_PERIODO } from "../../schema/upstream/Rcv.ts"
import type { UpstreamSessionEvent } from "../../schema/upstream/Session.ts"
import { type Day, formatPeriodo, monthIndex, parsePeriodo, todayInChile, ymdFromDay } from "./CivilDate.ts"
import { maskRut } from "./MaskedRut.ts"
import { makePrng } from "./Prng.ts"
import { rcvDocuments, rcvResumen, revised } from "./RcvGenerator.ts"
import { scenarioOf } from "./ScriptedScenario.ts"
import { makeSessionLog } from "./SessionLog.ts"
import {
  SII_LATENCY,
  SII_SCENARIOS,
  type SiiCredentials,
  type SiiLatency,
  type SiiLoginError,
  type SiiScenario,
  type SiiSession,
  SiiUpstream
} from "./SiiUpstream.ts"
import { scaledSleep, timeScaleConfig } from "./SimulatorClock.ts"

export interface SiiSimulatorOptions {
  /** 1 = production-like (≈ 20 s login), 0 = instant. */
  readonly timeScale: number
  readonly latency?: Partial<SiiLatency>
  /** Documents per period and perspective instead of an SME's 20–500 (benchmarks). */
  readonly documentsPerPeriod?: number
}

export interface SiiSimulatorControl {
  /** Every session start, end and refused login, in order. */
  readonly sessions: Effect.Effect<ReadonlyArray<UpstreamSessionEvent>>
}

interface SimState {
  readonly sessionsOpened: number
  readonly loginsByRut: HashMap.HashMap<string, number>
  readonly expiredOnce: HashSet.HashSet<string>
}

export const SII_RETRY_AFTER_SECONDS = 300

const loginFailure = (scenario: SiiScenario): SiiLoginError | undefined => {
  switch (scenario) {
    case "invalida":
      return new UpstreamCredentialsInvalid({ upstream: "sii" })
    case "no_disponible":
      return new UpstreamUnavailable({ upstream: "sii", retryAfterSeconds: SII_RETRY_AFTER_SECONDS })
    case "en_uso":
      return new UpstreamSessionInUse({ upstream: "sii" })
    case "limite":
      return new UpstreamRateLimited({ upstream: "sii", retryAfterSeconds: SII_RETRY_AFTER_SECONDS })
    default:
      return undefined
  }
}

const checkPeriodo = (periodo: Periodo, today: Day) => {
  const { month, year } = ymdFromDay(today)
  const index = parsePeriodo(periodo)
  return index < parsePeriodo(RCV_FIRST_PERIODO) || index > monthIndex(year, month)
    ? Effect.fail(
      new RcvPeriodOutOfRange({
        periodo,
        message: `the RCV exists from ${RCV_FIRST_PERIODO} up to ${formatPeriodo(monthIndex(year, month))}; got ${periodo}`
      })
    )
    : Effect.void
}

export const makeSiiSimulator = Effect.fn("SiiSimulator.make")(function* (options: SiiSimulatorOptions) {
  const latency: SiiLatency = { ...SII_LATENCY, ...options.latency }
  const log = yield* makeSessionLog
  const state = yield* Ref.make<SimState>({
    sessionsOpened: 0,
    loginsByRut: HashMap.empty(),
    expiredOnce: HashSet.empty()
  })
  const sleep = (millis: number) => scaledSleep(millis, options.timeScale)

  const login = Effect.fn("SiiSimulator.login")(function* (credentials: SiiCredentials) {
    const rut = credentials.rut
    yield* Effect.annotateCurrentSpan("rut", maskRut(rut))
    const scenario: SiiScenario = scenarioOf(SII_SCENARIOS, Redacted.value(credentials.clave))
    const [attempt, sessionNumber] = yield* Ref.modify(state, (s): readonly [readonly [number, number], SimState] => {
      const attempt = Option.getOrElse(HashMap.get(s.loginsByRut, rut), () => 0) + 1
      return [[attempt, s.sessionsOpened + 1], {
        ...s,
        sessionsOpened: s.sessionsOpened + 1,
        loginsByRut: HashMap.set(s.loginsByRut, rut, attempt)
      }]
    })
    const sessionId = `sii_ses_${sessionNumber}`
    const roll = makePrng(`sii|${rut}|login|${attempt}`).normal()
    const loginMs = Math.min(latency.loginMaxMs, Math.max(latency.loginMinMs, latency.loginMs * Math.exp(0.35 * roll)))
    yield* sleep(loginMs + latency.rcvInitMs)
    const failure = loginFailure(scenario)
    if (failure !== undefined) {
      yield* log.record({ upstream: "sii", rut, sessionId, kind: "rejected", reason: failure.reason })
      return yield* Effect.fail(failure)
    }
    // Deterministic by login count: the first login sees the documents as issued, later ones the correction.
    const view = (
      documentos: ReadonlyArray<RcvDocumento>
    ) => (scenario === "cambia" && attempt >= 2 ? revised(rut, documentos) : documentos)
    const status = yield* Ref.make<"abierta" | "cerrada">("abierta")
    const requests = yield* Ref.make(0)
    const close = Ref.getAndSet(status, "cerrada").pipe(
      Effect.flatMap((was) => (was === "abierta" ? log.record({ upstream: "sii", rut, sessionId, kind: "end" }) : Effect.void))
    )
    yield* Effect.acquireRelease(log.record({ upstream: "sii", rut, sessionId, kind: "start" }), () => close)

    const request = Effect.fn("SiiSimulator.request")(function* () {
      if ((yield* Ref.get(status)) === "cerrada") return yield* new UpstreamSessionExpired({ upstream: "sii" })
      const n = yield* Ref.updateAndGet(requests, (k) => k + 1)
      if (scenario === "expira" && n === 2) {
        const first = yield* Ref.modify(
          state,
          (s): readonly [boolean, SimState] =>
            HashSet.has(s.expiredOnce, rut) ? [false, s] : [true, { ...s, expiredOnce: HashSet.add(s.expiredOnce, rut) }]
        )
        if (first) {
          yield* close
          return yield* new UpstreamSessionExpired({
            upstream: "sii",
            message: "NO ESTA AUTENTICADO: the SII session expired; log in again"
          })
        }
      }
      yield* sleep(latency.requestSpacingMs)
      return yield* todayInChile
    })

    const session: SiiSession = {
      id: sessionId,
      rut,
      resumen: Effect.fn("SiiSession.resumen")(function* (periodo, perspectiva) {
        const today = yield* request()
        yield* checkPeriodo(periodo, today)
        return rcvResumen(rut, periodo, perspectiva, today, options.documentsPerPeriod, view)
      }),
      detalle: Effect.fn("SiiSession.detalle")(function* (periodo, perspectiva, tipoDte) {
        const today = yield* request()
        yield* checkPeriodo(periodo, today)
        if (scenario === "parcial") {
          const withDetail = rcvResumen(rut, periodo, perspectiva, today, options.documentsPerPeriod).tipos.filter((t) => !t.soloTotal)
          const failing = Math.max(...withDetail.map((t) => t.tipoDte))
          if (tipoDte === failing) {
            return yield* new UpstreamPartial({
              upstream: "sii",
              recurso: `tipoDte:${tipoDte}`,
              message: `SII answered "Error al obtener el detalle" for tipoDte ${tipoDte}, on every attempt`
            })
          }
        }
        return view(rcvDocuments(rut, periodo, perspectiva, today, options.documentsPerPeriod)).filter((d) => d.tipoDte === tipoDte)
      })
    }
    return session
  })

  return { upstream: SiiUpstream.of({ login }), control: { sessions: log.events } satisfies SiiSimulatorControl }
})

export class SiiSimulator extends Context.Tag("brein/upstream/SiiSimulator")<SiiSimulator, SiiSimulatorControl>() {
  static readonly layerWith = (options: SiiSimulatorOptions): Layer.Layer<SiiUpstream | SiiSimulator> =>
    Layer.effectContext(
      Effect.map(makeSiiSimulator(options), ({ control, upstream }) =>
        Context.make(SiiUpstream, upstream).pipe(Context.add(SiiSimulator, control)))
    )

  /** Reads UPSTREAM_TIME_SCALE (default 1). */
  static readonly layer: Layer.Layer<SiiUpstream | SiiSimulator, ConfigError.ConfigError> = Layer.unwrapEffect(
    Effect.map(timeScaleConfig, (timeScale) => SiiSimulator.layerWith({ timeScale }))
  )
}
