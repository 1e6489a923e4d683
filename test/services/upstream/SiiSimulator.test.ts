import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Schema, TestClock } from "effect"
import { RcvDocumento, RcvResumen } from "../../../schema/upstream/Rcv.ts"
import { SiiSimulator } from "../../../services/upstream/SiiSimulator.ts"
import { SiiUpstream } from "../../../services/upstream/SiiUpstream.ts"
import { dmyToIso, setClock, siiCredentials, syncPeriod } from "./helpers.ts"

const instant = SiiSimulator.layerWith({ timeScale: 0 })
const AURORA = "77123456-9"

const syncOnce = (rutText: string, periodo: string, perspectiva: "ventas" | "compras") =>
  Effect.gen(function* () {
    const sii = yield* SiiUpstream
    return yield* Effect.scoped(Effect.flatMap(sii.login(siiCredentials(rutText)), (s) => syncPeriod(s, periodo, perspectiva)))
  })

describe("SiiSimulator data", () => {
  it.effect("is deterministic: two simulators give byte-identical periods", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const first = yield* syncOnce(AURORA, "2026-07", "compras").pipe(Effect.provide(instant))
      const second = yield* syncOnce(AURORA, "2026-07", "compras").pipe(Effect.provide(instant))
      const other = yield* syncOnce("76543210-3", "2026-07", "compras").pipe(Effect.provide(instant))
      assert.isAbove(first.docs.length, 0)
      assert.strictEqual(JSON.stringify(first), JSON.stringify(second))
      assert.notStrictEqual(JSON.stringify(first.docs), JSON.stringify(other.docs))
    }))

  it.effect("keeps SII's invariants in both registers", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      for (const rutText of [AURORA, "76000001-9", "78123123-1"]) {
        for (const perspectiva of ["ventas", "compras"] as const) {
          const { docs, resumen } = yield* syncOnce(rutText, "2026-06", perspectiva)
          yield* Schema.decodeUnknown(Schema.Array(RcvDocumento))(yield* Schema.encode(Schema.Array(RcvDocumento))(docs))
          yield* Schema.decodeUnknown(RcvResumen)(resumen)
          const byKey = new Map(docs.map((d) => [`${d.tipoDte}|${d.folio}|${d.rutEmisor}`, d]))
          for (const d of docs) {
            assert.strictEqual(d.montoIva, Math.round(d.montoNeto * 0.19))
            assert.strictEqual(d.montoTotal, d.montoNeto + d.montoIva + d.montoExento)
            if (d.tipoDte === 34) assert.deepStrictEqual([d.montoNeto, d.montoIva], [0, 0])
            if (perspectiva === "ventas") assert.strictEqual(d.rutEmisor, rutText)
            if (perspectiva === "compras" && d.tipoDte !== 46) assert.strictEqual(d.rutReceptor, rutText)
            if (perspectiva === "ventas") assert.strictEqual(d.estado, "registro")
            const body = Number(d.rutEmisor === rutText ? d.rutReceptor.split("-")[0] : d.rutEmisor.split("-")[0])
            if (d.tipoDte === 33 || d.tipoDte === 34) assert.isTrue(body >= 76_000_000 && body <= 78_999_999)
            if (d.tipoDte === 61 || d.tipoDte === 56) {
              const ref = byKey.get(`${d.tipoDocRef}|${d.folioRef}|${d.rutEmisor}`)
              assert.isDefined(ref, `note ${d.folio} references a document of the period`)
              assert.strictEqual(ref?.tipoDte, 33)
              assert.strictEqual(ref?.rutReceptor, d.rutReceptor)
              assert.isTrue(dmyToIso(ref?.fechaEmision ?? "") <= dmyToIso(d.fechaEmision))
            }
          }
          const series = new Map<string, Array<{ fecha: string; folio: number }>>()
          for (const d of docs) {
            const key = `${d.rutEmisor}|${d.tipoDte}`
            series.set(key, [...(series.get(key) ?? []), { fecha: dmyToIso(d.fechaEmision), folio: d.folio }])
          }
          for (const list of series.values()) {
            const sorted = [...list].sort((a, b) => a.folio - b.folio)
            sorted.forEach((x, i) => i > 0 && assert.isTrue(x.fecha >= (sorted[i - 1]?.fecha ?? ""), "folios increase with the date"))
          }
          for (const tipo of resumen.tipos) {
            const rows = docs.filter((d) => d.tipoDte === tipo.tipoDte)
            assert.strictEqual(rows.length, tipo.soloTotal ? 0 : tipo.documentos)
            if (!tipo.soloTotal) assert.strictEqual(rows.reduce((s, d) => s + d.montoTotal, 0), tipo.montoTotal)
          }
        }
      }
    }).pipe(Effect.provide(instant)))

  it.effect("shows pendiente only for purchases received less than 8 days before the clock", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const current = yield* syncOnce(AURORA, "2026-08", "compras")
      const closed = yield* syncOnce(AURORA, "2026-06", "compras")
      const pendientes = current.docs.filter((d) => d.estado === "pendiente")
      assert.isAbove(pendientes.length, 0)
      for (const d of pendientes) assert.isTrue(dmyToIso(d.fechaEmision) > "2026-07-29")
      assert.isFalse(closed.docs.some((d) => d.estado === "pendiente"))
      assert.isTrue(current.docs.every((d) => dmyToIso(d.fechaEmision) <= "2026-08-06"), "no document from the future")
    }).pipe(Effect.provide(instant)))

  it.effect("changes documents between syncs: new rows, estados settle, an amount is corrected", () =>
    Effect.gen(function* () {
      yield* setClock("2026-07-20T15:00:00Z")
      const early = yield* syncOnce(AURORA, "2026-07", "compras")
      yield* setClock("2026-08-06T15:00:00Z")
      const first = yield* syncOnce(AURORA, "2026-07", "compras")
      yield* setClock("2026-09-06T15:00:00Z")
      const later = yield* syncOnce(AURORA, "2026-07", "compras")
      assert.isAbove(first.docs.length, early.docs.length)
      const key = (d: RcvDocumento) => `${d.tipoDte}|${d.folio}|${d.rutEmisor}`
      const before = new Map(first.docs.map((d) => [key(d), d]))
      const moved = later.docs.filter((d) => before.get(key(d))?.estado === "pendiente" && d.estado !== "pendiente")
      const corrected = later.docs.filter((d) => {
        const old = before.get(key(d))
        return old !== undefined && old.montoTotal !== d.montoTotal
      })
      assert.isAbove(moved.length, 0)
      assert.isAbove(corrected.length, 0)
      assert.strictEqual(later.docs.length, first.docs.length)
    }).pipe(Effect.provide(instant)))

  it.effect("treats an empty period as valid and rejects periods outside the RCV", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const empty = yield* syncOnce("76543210-3", "2017-08", "ventas")
      assert.deepStrictEqual(empty.resumen.tipos, [])
      assert.deepStrictEqual(empty.docs, [])
      const before = yield* Effect.flip(syncOnce(AURORA, "2017-07", "ventas"))
      const future = yield* Effect.flip(syncOnce(AURORA, "2026-09", "ventas"))
      assert.strictEqual(before._tag, "RcvPeriodOutOfRange")
      assert.strictEqual(future._tag, "RcvPeriodOutOfRange")
    }).pipe(Effect.provide(instant)))
})

describe("SiiSimulator sessions and latency", () => {
  it.effect("records session start and end in the log; the clave never appears", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const sii = yield* SiiUpstream
      const id = yield* Effect.scoped(
        Effect.gen(function* () {
          const session = yield* sii.login(siiCredentials(AURORA, "clave-super-secreta"))
          yield* session.resumen("2026-07", "ventas")
          return session.id
        })
      )
      const log = yield* (yield* SiiSimulator).sessions
      assert.deepStrictEqual(log.map((e) => [e.sessionId, e.kind, e.rut]), [[id, "start", AURORA], [id, "end", AURORA]])
      assert.isFalse(JSON.stringify(log).includes("clave-super-secreta"))
    }).pipe(Effect.provide(instant)))

  it.effect("a session used after logout fails as expired", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const sii = yield* SiiUpstream
      const session = yield* Effect.scoped(sii.login(siiCredentials(AURORA)))
      const error = yield* Effect.flip(session.resumen("2026-07", "ventas"))
      assert.strictEqual(error._tag, "UpstreamSessionExpired")
    }).pipe(Effect.provide(instant)))

  it.effect("takes production-like time at timeScale 1 and none at timeScale 0", () =>
    Effect.gen(function* () {
      yield* setClock("2026-08-06T15:00:00Z")
      const sii = yield* SiiUpstream
      const fiber = yield* Effect.fork(Effect.scoped(sii.login(siiCredentials(AURORA))))
      yield* TestClock.adjust("10 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "login is not done after 10 s")
      yield* TestClock.adjust("40 seconds")
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(fiber).pipe(Effect.exit)))
    }).pipe(Effect.provide(SiiSimulator.layerWith({ timeScale: 1 }))))
})
