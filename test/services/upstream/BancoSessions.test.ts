import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, TestClock } from "effect"
import { BancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { BANCO_SCENARIOS, BancoUpstream } from "../../../services/upstream/BancoUpstream.ts"
import { overlappingSessions } from "../../../services/upstream/SessionLog.ts"
import { bancoCredentials, setClock } from "./helpers.ts"

const instant = BancoSimulator.layerWith({ timeScale: 0 })
const production = BancoSimulator.layerWith({ timeScale: 1 })
const USER = "12345678-5"

const loginWith = (clave: string) =>
  Effect.gen(function* () {
    const banco = yield* BancoUpstream
    return yield* Effect.scoped(Effect.flatMap(banco.login(bancoCredentials("banco_de_chile", USER, clave)), (s) => s.cuentas()))
  })

describe("BancoSimulator: one session per BCI user", () => {
  it.effect("refuses a second concurrent login for the same BCI user and never overlaps sessions", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const banco = yield* BancoUpstream
      const first = yield* Effect.fork(Effect.scoped(Effect.flatMap(banco.login(bancoCredentials("bci", USER)), (s) => s.cuentas())))
      yield* TestClock.adjust("10 seconds")
      const second = yield* Effect.fork(Effect.flip(Effect.scoped(banco.login(bancoCredentials("bci", USER)))))
      yield* TestClock.adjust("1 second")
      const refused = yield* Fiber.poll(second)
      assert.isTrue(
        Option.isSome(refused) && Exit.isSuccess(refused.value) && refused.value.value._tag === "UpstreamSessionInUse",
        "the second login fails fast with UpstreamSessionInUse instead of waiting for the bank"
      )
      const otherUser = yield* Effect.fork(Effect.scoped(banco.login(bancoCredentials("bci", "11111111-1"))))
      const otherBank = yield* Effect.fork(Effect.scoped(banco.login(bancoCredentials("santander", USER))))
      yield* TestClock.adjust("200 seconds")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(first)))
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(otherUser)))
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(otherBank)))
      const third = yield* Effect.fork(Effect.scoped(banco.login(bancoCredentials("bci", USER))))
      yield* TestClock.adjust("200 seconds")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(third)), "the slot is free once the first session logged out")
      const log = yield* (yield* BancoSimulator).sessions
      assert.deepStrictEqual(overlappingSessions(log), [])
      const bci = log.filter((e) => e.institution === "bci" && e.rut === USER)
      assert.deepStrictEqual(bci.map((e) => e.kind), ["rejected", "start", "end", "start", "end"])
      assert.strictEqual(bci[0]?.reason, "sesion_en_uso")
      assert.isTrue((bci[1]?.at ?? 0) < (bci[2]?.at ?? 0))
    }).pipe(Effect.provide(production)))

  it.effect("concurrent logins to other banks may overlap", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const banco = yield* BancoUpstream
      const both = yield* Effect.fork(
        Effect.all(
          [1, 2].map(() => Effect.scoped(Effect.zipRight(banco.login(bancoCredentials("santander", USER)), Effect.sleep("60 seconds")))),
          { concurrency: 2 }
        )
      )
      yield* TestClock.adjust("300 seconds")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(both)))
      assert.strictEqual(overlappingSessions(yield* (yield* BancoSimulator).sessions).length, 1)
    }).pipe(Effect.provide(production)))

  it.effect("an interrupted or failed login frees the slot at once", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const banco = yield* BancoUpstream
      const stuck = yield* Effect.fork(Effect.scoped(banco.login(bancoCredentials("bci", USER))))
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.interrupt(stuck)
      yield* Effect.scoped(
        Effect.gen(function* () {
          const failing = yield* Effect.fork(Effect.flip(banco.login(bancoCredentials("bci", USER, "invalida"))))
          yield* TestClock.adjust("200 seconds")
          assert.strictEqual((yield* Fiber.join(failing))._tag, "UpstreamCredentialsInvalid")
          const retried = yield* Effect.fork(banco.login(bancoCredentials("bci", USER)))
          yield* TestClock.adjust("200 seconds")
          assert.isTrue(Exit.isSuccess(yield* Fiber.await(retried)))
        })
      )
      assert.deepStrictEqual(overlappingSessions(yield* (yield* BancoSimulator).sessions), [])
    }).pipe(Effect.provide(production)))

  it.effect("expira: the expired BCI session frees the slot so a re-login in the same scope continues", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const banco = yield* BancoUpstream
      const credentials = bancoCredentials("bci", USER, "expira")
      const movimientos = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* banco.login(credentials)
          const [cuenta] = yield* session.cuentas()
          if (cuenta === undefined) return yield* Effect.die("every user has a checking account")
          const expired = yield* Effect.flip(session.movimientos(cuenta.id, "2026-07-01", "2026-07-31"))
          assert.strictEqual(expired._tag, "UpstreamSessionExpired")
          const again = yield* banco.login(credentials)
          return yield* again.movimientos(cuenta.id, "2026-07-01", "2026-07-31")
        })
      )
      assert.isAbove(movimientos.length, 0)
      const log = yield* (yield* BancoSimulator).sessions
      assert.deepStrictEqual(log.map((e) => e.kind), ["start", "end", "start", "end"])
      assert.deepStrictEqual(overlappingSessions(log), [])
    }).pipe(Effect.provide(instant)))
})

describe("BancoSimulator scripted failures", () => {
  it("documents every scenario for the README", () => {
    assert.deepStrictEqual(BANCO_SCENARIOS.map((s) => s.clave), [
      "invalida",
      "mfa",
      "mfa_aprobada",
      "mfa_timeout",
      "en_uso",
      "no_disponible",
      "limite",
      "expira",
      "parcial"
    ])
  })

  it.effect("maps login failures to typed errors with the product's reasons", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const outcomes = yield* Effect.forEach(["invalida", "mfa", "en_uso", "no_disponible", "limite"], (clave) =>
        Effect.flip(loginWith(clave)))
      assert.deepStrictEqual(outcomes.map((e) => [e._tag, e.reason]), [
        ["UpstreamCredentialsInvalid", "credenciales_invalidas"],
        ["UpstreamMfaRequired", "mfa_requerido"],
        ["UpstreamSessionInUse", "sesion_en_uso"],
        ["UpstreamUnavailable", "upstream_no_disponible"],
        ["UpstreamRateLimited", "limite_de_tasa"]
      ])
      assert.isAbove((yield* loginWith("cualquier-otra")).length, 0)
    }).pipe(Effect.provide(instant)))

  it.effect("MFA: push approval succeeds after 30 s more; no approval times out after 120 s", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const approved = yield* Effect.fork(loginWith("mfa_aprobada"))
      const ignored = yield* Effect.fork(Effect.flip(loginWith("mfa_timeout")))
      yield* TestClock.adjust("119 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(approved)))
      yield* TestClock.adjust("1 second")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(approved)))
      yield* TestClock.adjust("89 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(ignored)))
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(ignored)
      assert.deepStrictEqual([error._tag, error.reason], ["UpstreamMfaTimeout", "mfa_timeout"])
    }).pipe(Effect.provide(BancoSimulator.layerWith({ timeScale: 1, latency: { loginJitterMs: 0, accountsMs: 0 } }))))

  it.effect("parcial: the last account's movements fail every time, the others are served", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const banco = yield* BancoUpstream
      const results = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* banco.login(bancoCredentials("itau", "11111111-1", "parcial"))
          const cuentas = yield* session.cuentas()
          const out = yield* Effect.forEach(cuentas, (c) => Effect.either(session.movimientos(c.id, "2026-07-01", "2026-07-31")))
          return out
        })
      )
      const failures = results.flatMap((r) => (r._tag === "Left" ? [r.left] : []))
      assert.strictEqual(failures.length, 1)
      assert.isAbove(results.length, 1)
      assert.strictEqual(results.at(-1)?._tag, "Left")
      assert.deepStrictEqual([failures[0]?._tag, failures[0]?._tag === "UpstreamPartial" ? failures[0].reason : ""], [
        "UpstreamPartial",
        "sincronizacion_parcial"
      ])
    }).pipe(Effect.provide(instant)))
})
