import { type ConfigError, Context, Effect, HashMap, HashSet, Layer, Option, Redacted, Ref } from "effect"
import { type AccountId, INSTITUTIONS } from "../../schema/upstream/Banco.ts"
import {
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
import type { UpstreamSessionEvent } from "../../schema/upstream/Session.ts"
import {
  BANCO_LATENCY,
  BANCO_SCENARIOS,
  type BancoCredentials,
  type BancoLatency,
  type BancoLoginError,
  type BancoScenario,
  type BancoSession,
  BancoUpstream
} from "./BancoUpstream.ts"
import { accountOn, accountPlans, monthsBetween, movements } from "./CartolaGenerator.ts"
import { parseIsoDay, todayInChile } from "./CivilDate.ts"
import { maskRut } from "./MaskedRut.ts"
import { makePrng } from "./Prng.ts"
import { scenarioOf } from "./ScriptedScenario.ts"
import { makeSessionLog } from "./SessionLog.ts"
import { jittered, scaledSleep, timeScaleConfig } from "./SimulatorClock.ts"

export interface BancoSimulatorOptions {
  /** 1 = production-like (≈ 90 s login), 0 = instant. */
  readonly timeScale: number
  readonly latency?: Partial<BancoLatency>
}

export interface BancoSimulatorControl {
  /** Every session start, end and refused login, in order. */
  readonly sessions: Effect.Effect<ReadonlyArray<UpstreamSessionEvent>>
}

interface SimState {
  readonly sessionsOpened: number
  readonly loginsByUser: HashMap.HashMap<string, number>
  readonly slots: HashMap.HashMap<string, string>
  readonly expiredOnce: HashSet.HashSet<string>
}

export const BANCO_RETRY_AFTER_SECONDS = 300

const scriptedFailure = (scenario: BancoScenario): BancoLoginError | undefined => {
  switch (scenario) {
    case "invalida":
      return new UpstreamCredentialsInvalid({ upstream: "banco" })
    case "mfa":
      return new UpstreamMfaRequired({ upstream: "banco" })
    case "en_uso":
      return new UpstreamSessionInUse({ upstream: "banco", message: "the user has an open session on the bank's web or app" })
    case "no_disponible":
      return new UpstreamUnavailable({ upstream: "banco", retryAfterSeconds: BANCO_RETRY_AFTER_SECONDS })
    case "limite":
      return new UpstreamRateLimited({ upstream: "banco", retryAfterSeconds: BANCO_RETRY_AFTER_SECONDS })
    default:
      return undefined
  }
}

export const makeBancoSimulator = Effect.fn("BancoSimulator.make")(function* (options: BancoSimulatorOptions) {
  const latency: BancoLatency = { ...BANCO_LATENCY, ...options.latency }
  const log = yield* makeSessionLog
  const state = yield* Ref.make<SimState>({
    sessionsOpened: 0,
    loginsByUser: HashMap.empty(),
    slots: HashMap.empty(),
    expiredOnce: HashSet.empty()
  })
  const sleep = (millis: number) => scaledSleep(millis, options.timeScale)

  const login = Effect.fn("BancoSimulator.login")(function* (credentials: BancoCredentials) {
    const { institution, rut } = credentials
    const user = `${institution}|${rut}`
    yield* Effect.annotateCurrentSpan({ institution, rut: maskRut(rut) })
    const scenario = scenarioOf(BANCO_SCENARIOS, Redacted.value(credentials.clave))
    const [attempt, sessionId] = yield* Ref.modify(state, (s): readonly [readonly [number, string], SimState] => {
      const attempt = Option.getOrElse(HashMap.get(s.loginsByUser, user), () => 0) + 1
      const next = s.sessionsOpened + 1
      return [[attempt, `banco_ses_${next}`], { ...s, sessionsOpened: next, loginsByUser: HashMap.set(s.loginsByUser, user, attempt) }]
    })
    const event = { upstream: "banco", institution, rut, sessionId } as const
    const reject = (error: BancoLoginError) =>
      Effect.zipRight(log.record({ ...event, kind: "rejected", reason: error.reason }), Effect.fail(error))

    if (INSTITUTIONS[institution].singleSession) {
      const claimed = yield* Ref.modify(
        state,
        (s): readonly [boolean, SimState] =>
          HashMap.has(s.slots, user) ? [false, s] : [true, { ...s, slots: HashMap.set(s.slots, user, sessionId) }]
      )
      if (!claimed) {
        return yield* reject(
          new UpstreamSessionInUse({
            upstream: "banco",
            message: `${INSTITUTIONS[institution].nombre} allows one session per user and one is active`
          })
        )
      }
    }
    const releaseSlot = Ref.update(
      state,
      (s) => Option.contains(HashMap.get(s.slots, user), sessionId) ? { ...s, slots: HashMap.remove(s.slots, user) } : s
    )
    yield* Effect.addFinalizer(() => releaseSlot)

    const status = yield* Ref.make<"abierta" | "cerrada">("abierta")
    const close = Ref.getAndSet(status, "cerrada").pipe(
      Effect.flatMap((was) => (was === "abierta" ? log.record({ ...event, kind: "end" }) : Effect.void)),
      Effect.zipRight(releaseSlot)
    )
    yield* Effect.gen(function* () {
      yield* sleep(jittered(latency.loginMs, latency.loginJitterMs, makePrng(`banco|${user}|login|${attempt}`).next()))
      if (scenario === "mfa_aprobada") yield* sleep(latency.mfaWaitMs)
      if (scenario === "mfa_timeout") {
        yield* sleep(latency.mfaTimeoutMs)
        return yield* reject(new UpstreamMfaTimeout({ upstream: "banco" }))
      }
      const failure = scriptedFailure(scenario)
      if (failure !== undefined) return yield* reject(failure)
      yield* Effect.acquireRelease(log.record({ ...event, kind: "start" }), () => close)
    }).pipe(Effect.onError(() => releaseSlot))

    const requests = yield* Ref.make(0)
    const request = Effect.fn("BancoSimulator.request")(function* () {
      if ((yield* Ref.get(status)) === "cerrada") return yield* new UpstreamSessionExpired({ upstream: "banco" })
      const n = yield* Ref.updateAndGet(requests, (k) => k + 1)
      if (scenario === "expira" && n === 2) {
        const first = yield* Ref.modify(
          state,
          (s): readonly [boolean, SimState] =>
            HashSet.has(s.expiredOnce, user) ? [false, s] : [true, { ...s, expiredOnce: HashSet.add(s.expiredOnce, user) }]
        )
        if (first) {
          yield* close
          return yield* new UpstreamSessionExpired({ upstream: "banco" })
        }
      }
      return yield* todayInChile
    })
    const plans = accountPlans(institution, rut)

    const session: BancoSession = {
      id: sessionId,
      institution,
      rut,
      cuentas: Effect.fn("BancoSession.cuentas")(function* () {
        const today = yield* request()
        yield* sleep(latency.accountsMs)
        return plans.flatMap((plan) => accountOn(plan, today) ?? [])
      }),
      movimientos: Effect.fn("BancoSession.movimientos")(function* (accountId: AccountId, desde: Fecha, hasta: Fecha) {
        const today = yield* request()
        const plan = plans.find((p) => p.id === accountId)
        if (plan === undefined) return yield* new BancoAccountNotFound({ accountId })
        const [from, to] = [parseIsoDay(desde), Math.min(parseIsoDay(hasta), today)]
        yield* sleep(latency.pageMs * monthsBetween(from, to))
        if (scenario === "parcial" && plans.filter((p) => accountOn(p, today) !== undefined).at(-1)?.id === accountId) {
          return yield* new UpstreamPartial({
            upstream: "banco",
            recurso: accountId,
            message: "the bank timed out serving this account's movements (cartola), on every attempt"
          })
        }
        return movements(plan, from, to, today)
      })
    }
    return session
  })

  return { upstream: BancoUpstream.of({ login }), control: { sessions: log.events } satisfies BancoSimulatorControl }
})

export class BancoSimulator extends Context.Tag("brein/upstream/BancoSimulator")<BancoSimulator, BancoSimulatorControl>() {
  static readonly layerWith = (options: BancoSimulatorOptions): Layer.Layer<BancoUpstream | BancoSimulator> =>
    Layer.effectContext(
      Effect.map(makeBancoSimulator(options), ({ control, upstream }) =>
        Context.make(BancoUpstream, upstream).pipe(Context.add(BancoSimulator, control)))
    )

  /** Reads UPSTREAM_TIME_SCALE (default 1). */
  static readonly layer: Layer.Layer<BancoUpstream | BancoSimulator, ConfigError.ConfigError> = Layer.unwrapEffect(
    Effect.map(timeScaleConfig, (timeScale) => BancoSimulator.layerWith({ timeScale }))
  )
}
