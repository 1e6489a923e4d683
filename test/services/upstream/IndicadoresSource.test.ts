import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Fiber, Option, TestClock } from "effect"
import { dayFromYmd, isBusinessDay, monthFromIndex, monthIndex, weekday } from "../../../services/upstream/CivilDate.ts"
import { valueOn } from "../../../services/upstream/IndicadoresGenerator.ts"
import { IndicadoresSimulator, IndicadoresSource } from "../../../services/upstream/IndicadoresSource.ts"
import { resumen } from "../../../services/upstream/Mindicador.ts"
import { setClock } from "./helpers.ts"

const instant = IndicadoresSimulator.layerWith({ timeScale: 0 })
const AS_OF = "2026-10-02T15:00:00Z"

describe("IndicadoresSource simulator", () => {
  it.effect("serves the observed 2026-10-02 anchors in mindicador's shape", () =>
    Effect.gen(function* () {
      yield* setClock(AS_OF)
      const source = yield* IndicadoresSource
      const uf = yield* source.valor("uf")
      assert.deepStrictEqual(uf, {
        codigo: "uf",
        nombre: "Unidad de fomento (UF)",
        unidad_medida: "Pesos",
        fecha: "2026-10-02T03:00:00.000Z",
        valor: 41_073.57
      })
      assert.strictEqual((yield* source.valor("dolar")).valor, 983.84)
      assert.strictEqual((yield* source.valor("euro")).valor, 1_104.57)
      assert.strictEqual((yield* source.valor("libra_cobre")).valor, 6.56)
      assert.deepStrictEqual(yield* source.valor("utm"), {
        codigo: "utm",
        nombre: "Unidad Tributaria Mensual (UTM)",
        unidad_medida: "Pesos",
        fecha: "2026-10-01T03:00:00.000Z",
        valor: 72_151
      })
      const bitcoin = yield* source.valor("bitcoin")
      assert.strictEqual(bitcoin.unidad_medida, "Dólar")
      const acuerdo = yield* source.valor("dolar_intercambio")
      assert.deepStrictEqual([acuerdo.valor, acuerdo.fecha], [758.87, "2014-11-13T03:00:00.000Z"])
    }).pipe(Effect.provide(instant)))

  it.effect("dólar only on business days; a Saturday has no value", () =>
    Effect.gen(function* () {
      yield* setClock("2026-10-04T15:00:00Z")
      const source = yield* IndicadoresSource
      const latest = yield* source.valor("dolar")
      assert.strictEqual(latest.fecha, "2026-10-02T03:00:00.000Z", "Sunday shows Friday's rate")
      const saturday = yield* Effect.flip(source.valor("dolar", "2026-10-03"))
      assert.strictEqual(saturday._tag, "IndicadorValueNotFound")
      const serie = yield* source.serie("dolar", "2026-01-01", "2026-09-30")
      assert.isAbove(serie.serie.length, 180)
      for (const p of serie.serie) {
        assert.isTrue(isBusinessDay(dayFromYmd(Number(p.fecha.slice(0, 4)), Number(p.fecha.slice(5, 7)), Number(p.fecha.slice(8, 10)))))
      }
      const dates = serie.serie.map((p) => p.fecha)
      assert.deepStrictEqual(dates, [...dates].sort().reverse(), "newest first")
      for (const p of serie.serie) assert.isTrue(p.valor >= 900 && p.valor <= 1_020)
    }).pipe(Effect.provide(instant)))

  it("UF follows the 10th-to-9th rule: each window grows by the previous month's IPC, at a constant daily rate", () => {
    const uf = (y: number, m: number, d: number) => valueOn("uf", dayFromYmd(y, m, d)) ?? Number.NaN
    for (let m = 1; m <= 11; m++) {
      const previous = monthFromIndex(monthIndex(2026, m) - 1)
      const ipc = valueOn("ipc", dayFromYmd(previous.year, previous.month, 1)) ?? Number.NaN
      assert.closeTo(uf(2026, m + 1, 10) / uf(2026, m, 10), 1 + ipc / 100, 1e-6, `window from 2026-${m}-10`)
      assert.closeTo(uf(2026, m, 12) / uf(2026, m, 11), uf(2026, m + 1, 2) / uf(2026, m + 1, 1), 5e-7)
    }
    for (let day = dayFromYmd(2026, 1, 1); day < dayFromYmd(2027, 1, 1); day++) {
      const value = valueOn("uf", day) ?? 0
      assert.isTrue(value >= 39_500 && value <= 41_600, `UF ${value}`)
    }
  })

  it("UTM has one value per month, dated the 1st", () => {
    assert.strictEqual(valueOn("utm", dayFromYmd(2026, 10, 2)), undefined)
    for (let m = 1; m <= 12; m++) {
      const utm = valueOn("utm", dayFromYmd(2026, m, 1)) ?? 0
      assert.isTrue(utm >= 69_500 && utm <= 73_000, `UTM ${utm}`)
    }
  })

  it("is deterministic and has every code in GET /api", () => {
    const now = DateTime.toEpochMillis(DateTime.unsafeMake(AS_OF))
    const today = dayFromYmd(2026, 10, 2)
    assert.strictEqual(JSON.stringify(resumen(today, now)), JSON.stringify(resumen(today, now)))
    assert.strictEqual(Object.keys(resumen(today, now)).length, 15)
    assert.strictEqual(weekday(today), 5)
  })

  it.effect("answers after 300 ms at timeScale 1", () =>
    Effect.gen(function* () {
      yield* setClock(AS_OF)
      const source = yield* IndicadoresSource
      const fiber = yield* Effect.fork(source.valor("uf"))
      yield* TestClock.adjust("299 millis")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 millis")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)))
    }).pipe(Effect.provide(IndicadoresSimulator.layerWith({ timeScale: 1 }))))
})
