import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Schema, TestClock } from "effect"
import { Account, Movement } from "../../../schema/upstream/Banco.ts"
import { BancoSimulator } from "../../../services/upstream/BancoSimulator.ts"
import { BancoUpstream } from "../../../services/upstream/BancoUpstream.ts"
import { isBusinessDay, parseIsoDay, weekday } from "../../../services/upstream/CivilDate.ts"
import { bancoCredentials, setClock } from "./helpers.ts"

const instant = BancoSimulator.layerWith({ timeScale: 0 })
const USER = "12345678-5"

const cartola = (desde: string, hasta: string, rutText = USER) =>
  Effect.gen(function* () {
    const banco = yield* BancoUpstream
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const session = yield* banco.login(bancoCredentials("bci", rutText))
        const cuentas = yield* session.cuentas()
        const movimientos = yield* Effect.forEach(cuentas, (c) => session.movimientos(c.id, desde, hasta))
        return { cuentas, movimientos }
      })
    )
  })

describe("BancoSimulator data", () => {
  it.effect("is deterministic: two simulators give byte-identical cartolas", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const first = yield* cartola("2026-06-01", "2026-08-06").pipe(Effect.provide(instant))
      const second = yield* cartola("2026-06-01", "2026-08-06").pipe(Effect.provide(instant))
      assert.strictEqual(JSON.stringify(first), JSON.stringify(second))
      const other = yield* cartola("2026-06-01", "2026-08-06", "11111111-1").pipe(Effect.provide(instant))
      assert.notStrictEqual(JSON.stringify(first.cuentas), JSON.stringify(other.cuentas))
    }))

  it.effect("reconciles running balances with the account balance and follows bank calendars", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      for (const rutText of [USER, "11111111-1", "77123456-9", "5126663-3"]) {
        const { cuentas, movimientos } = yield* cartola("2026-05-01", "2026-12-31", rutText)
        assert.isTrue(cuentas.length >= 1 && cuentas.length <= 4)
        yield* Schema.decodeUnknown(Schema.Array(Account))(cuentas)
        cuentas.forEach((cuenta, i) => {
          const movs = movimientos[i] ?? []
          Schema.decodeUnknownSync(Schema.Array(Movement))(movs)
          movs.forEach((m, j) => {
            const previous = movs[j - 1]
            if (previous !== undefined) assert.strictEqual(m.balance, previous.balance + m.amount, `${m.id} reconciles`)
            assert.isTrue(isBusinessDay(parseIsoDay(m.postDate)))
            assert.isTrue(m.transactionDate <= m.postDate)
            if (!isBusinessDay(parseIsoDay(m.transactionDate))) assert.strictEqual(weekday(parseIsoDay(m.postDate)), 1)
            if (m.pending) assert.strictEqual(m.type, "check")
            if (m.pending) assert.isTrue(m.postDate >= "2026-08-04")
            assert.notStrictEqual(m.amount, 0)
          })
          assert.isTrue(movs.every((m) => m.postDate <= "2026-08-06"), "nothing after today")
          assert.strictEqual(movs[movs.length - 1]?.balance, cuenta.balance.current, "account balance = last running balance")
          for (const month of ["2026-05", "2026-06", "2026-07"]) {
            const count = movs.filter((m) => m.postDate.startsWith(month)).length
            assert.isTrue(count >= 40 && count <= 400, `${count} movements in ${month}`)
          }
        })
        const all = movimientos.flat()
        assert.isTrue(all.some((m) => m.transactionDate !== m.postDate), "some weekend transactions post on Monday")
      }
    }).pipe(Effect.provide(instant)))

  it.effect("confirms pending checks once two business days pass", () =>
    Effect.gen(function* () {
      let found = false
      for (const day of ["2026-07-01", "2026-07-08", "2026-07-15", "2026-07-22", "2026-07-29", "2026-08-05"]) {
        yield* setClock(`${day}T20:00:00Z`)
        const { movimientos } = yield* cartola("2026-06-01", day)
        const pending = movimientos.flat().filter((m) => m.pending)
        if (pending.length === 0) continue
        found = true
        yield* TestClock.adjust("7 days")
        const later = (yield* cartola("2026-06-01", day)).movimientos.flat()
        for (const p of pending) assert.isFalse(later.find((m) => m.id === p.id)?.pending ?? true)
      }
      assert.isTrue(found, "some check was pending on one of the sampled days")
    }).pipe(Effect.provide(instant)))
})

describe("BancoSimulator latency", () => {
  it.effect("a login takes 90 s at timeScale 1, driven by TestClock", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const banco = yield* BancoUpstream
      const fiber = yield* Effect.fork(Effect.scoped(Effect.asVoid(banco.login(bancoCredentials("bci", USER)))))
      yield* TestClock.adjust("89 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 second")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)))
    }).pipe(Effect.provide(BancoSimulator.layerWith({ timeScale: 1, latency: { loginJitterMs: 0 } }))))

  it.effect("jitter keeps the login within 75-105 s and scales with timeScale", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const banco = yield* BancoUpstream
      const fiber = yield* Effect.fork(Effect.scoped(Effect.asVoid(banco.login(bancoCredentials("santander", USER)))))
      yield* TestClock.adjust("75 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("30 millis")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)))
    }).pipe(Effect.provide(BancoSimulator.layerWith({ timeScale: 0.001 }))))
})
