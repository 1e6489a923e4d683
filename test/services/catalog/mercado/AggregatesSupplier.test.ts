import { assert, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { ScreenRisksOutput, SupplierHistoryOutput } from "../../../../schema/catalog/MercadoAggregatesSupplier.ts"
import { as, call, cents, failure, principalNow } from "./AggregateCalls.ts"
import { MercadoFixtures, RFC_CLEAN, RFC_NOT_SUPPLIER } from "./AggregateFixtures.ts"

const history = as(SupplierHistoryOutput)
const screen = as(ScreenRisksOutput)

layer(MercadoFixtures, { timeout: 120_000 })("Mercado supplier aggregates", (it) => {
  it.effect("market_get_supplier_history: per year, top units, procedure mix, overall total and average, risks", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const answer = history(yield* call(principal, "market_get_supplier_history", { supplier_id: "sup_1" }))
      assert.deepStrictEqual(answer.supplier, {
        id: "sup_1",
        rfc: "GFM010122DZ9",
        name: "Grupo Ferretero del Centro",
        persona: "moral",
        state: "MX-JAL",
        state_name: "Jalisco",
        size: "mediana",
        status: "habilitado",
        sector: "construccion"
      })
      assert.deepStrictEqual([answer.n, answer.total, answer.average, answer.years_active, answer.average_per_year], [
        3,
        1750000.5,
        583333.5,
        2,
        875000.25
      ])
      assert.deepStrictEqual(answer.years, [
        { year: 2023, n: 1, total: 1000000, average: 1000000, share: 57.1 },
        { year: 2024, n: 2, total: 750000.5, average: 375000.25, share: 42.9 }
      ])
      assert.deepStrictEqual(answer.top_units.map((u) => [u.unit_id, u.n, u.total, u.average, u.share]), [
        ["u_2", 2, 1500000, 750000, 85.7],
        ["u_1", 1, 250000.5, 250000.5, 14.3]
      ])
      assert.deepStrictEqual(answer.procedures.map((p) => [p.procedure_type, p.n, p.total, p.share_n, p.share]), [
        ["adjudicacion_directa", 1, 500000, 33.3, 28.6],
        ["invitacion_tres", 1, 250000.5, 33.3, 14.3],
        ["licitacion_publica", 1, 1000000, 33.3, 57.1]
      ])
      assert.deepStrictEqual(
        [answer.risks.findings_total, answer.risks.highest_severity, answer.risks.by_severity],
        [1, "medium", { critical: 0, high: 0, medium: 1, info: 0 }]
      )
      assert.deepStrictEqual(answer.risks.findings.map((f) => [f.id, f.list, f.status, f.severity, f.in_force, f.amount]), [
        ["r5", "sancion", "multa", "medium", true, 50000]
      ])
      const years = answer.years.reduce((acc, y) => ({ n: acc.n + y.n, c: acc.c + cents(y.total) }), { n: 0, c: 0 })
      assert.deepStrictEqual(years, { n: answer.n, c: cents(answer.total) })
    }))

  it.effect("market_get_supplier_history by RFC (any case, hyphens) is the same answer; a year range narrows it", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const byId = history(yield* call(principal, "market_get_supplier_history", { supplier_id: "sup_1" }))
      const byRfc = history(yield* call(principal, "market_get_supplier_history", { rfc: "gfm-010122-dz9" }))
      assert.deepStrictEqual(byRfc, byId)
      const ranged = history(yield* call(principal, "market_get_supplier_history", { rfc: "GFM010122DZ9", year_from: 2024, top_units: 1 }))
      assert.deepStrictEqual([ranged.n, ranged.total, ranged.average, ranged.years.length], [2, 750000.5, 375000.25, 1])
      assert.deepStrictEqual(ranged.top_units.map((u) => [u.unit_id, u.total, u.share]), [["u_2", 500000, 66.7]])
      const idle = yield* call(principal, "market_get_supplier_history", { supplier_id: "sup_6" })
      const none = history(idle)
      assert.deepStrictEqual([none.n, none.total, none.average, none.average_per_year, none.years], [0, 0, null, null, []])
      assert.include(idle.hint ?? "", "no awards")
    }))

  it.effect("market_get_supplier_history refuses an unknown supplier, an invalid RFC, and both or neither of id and RFC", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const unknown = yield* failure(principal, "market_get_supplier_history", { supplier_id: "sup_nothere" })
      assert.strictEqual(unknown.tag, "RecordNotFound")
      assert.include(unknown.message, "no supplier \"sup_nothere\"")
      const notSupplier = yield* failure(principal, "market_get_supplier_history", { rfc: RFC_NOT_SUPPLIER })
      assert.strictEqual(notSupplier.tag, "RecordNotFound")
      const rfc = yield* failure(principal, "market_get_supplier_history", { rfc: "GFM010122DZ8" })
      assert.deepStrictEqual([rfc.tag, rfc.paths], ["InvalidInput", ["input.rfc"]])
      assert.include(rfc.message, "check character")
      const both = yield* failure(principal, "market_get_supplier_history", { supplier_id: "sup_1", rfc: "GFM010122DZ9" })
      assert.deepStrictEqual(both.paths, ["input.supplier_id"])
      const neither = yield* failure(principal, "market_get_supplier_history", {})
      assert.deepStrictEqual(neither.paths, ["input.supplier_id"])
    }))

  it.effect("market_screen_risks: findings and severity per RFC, each once, and a summary of the flagged with their contracts", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const response = yield* call(principal, "market_screen_risks", {
        rfcs: ["lno050314277", "&BC-040317-UN0", "JUNS6106155I6", RFC_NOT_SUPPLIER, "MAPS490702UMA", RFC_CLEAN],
        supplier_ids: ["sup_5", "sup_6"]
      })
      const answer = screen(response)
      assert.deepStrictEqual(
        answer.results.map((r) => [r.input, r.supplier_id, r.known_supplier, r.flagged, r.highest_severity, r.findings.map((f) => f.id)]),
        [
          ["LNO050314277", "sup_5", true, true, "critical", ["r7", "r1"]],
          ["&BC040317UN0", "sup_2", true, true, "high", ["r2"]],
          ["JUNS6106155I6", "sup_3", true, false, "info", ["r3"]],
          [RFC_NOT_SUPPLIER, null, false, true, "medium", ["r6"]],
          ["MAPS490702UMA", "sup_4", true, false, "info", ["r4"]],
          [RFC_CLEAN, null, false, false, null, []],
          ["sup_6", "sup_6", true, false, null, []]
        ]
      )
      assert.deepStrictEqual(answer.results[0]?.findings.map((f) => [f.list, f.status, f.severity]), [
        ["sat_69", "firmes", "medium"],
        ["sat_69b", "definitivo", "critical"]
      ])
      // desvirtuado clears the taxpayer: on record, not in force
      assert.deepStrictEqual(answer.results[2]?.findings.map((f) => [f.status, f.severity, f.in_force]), [["desvirtuado", "info", false]])
      // the inhabilitación ended in 2020: on record, no longer in force
      assert.deepStrictEqual(answer.results[4]?.findings.map((f) => [f.status, f.in_force, f.ends_on]), [[
        "inhabilitacion",
        false,
        "2020-06-30"
      ]])
      assert.deepStrictEqual(answer.results.map((r) => [r.awards_total, r.amount_total]).slice(0, 4), [[3, 3200000.01], [2, 200000], [
        2,
        100000
      ], [
        0,
        0
      ]])
      assert.deepStrictEqual(
        [answer.screened, answer.flagged, answer.share_flagged, answer.findings_total],
        [7, 3, 42.9, 6]
      )
      assert.deepStrictEqual(answer.by_severity, { critical: 1, high: 1, medium: 1, info: 2, none: 2 })
      assert.deepStrictEqual(
        [answer.flagged_awards_total, answer.flagged_amount_total, answer.flagged_amount_average],
        [5, 3400000.01, 1133333.34]
      )
      assert.match(answer.ref, /^market_screen_risks:[0-9a-f]{16}$/)
      assert.deepStrictEqual(response.next_actions?.map((a) => [a.tool, a.input]), [["market_get_supplier_history", {
        supplier_id: "sup_5"
      }]])
    }))

  it.effect("market_screen_risks: an unknown supplier id is RecordNotFound naming every unknown one", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const unknown = yield* failure(principal, "market_screen_risks", {
        rfcs: [RFC_CLEAN],
        supplier_ids: ["sup_5", "sup_nothere", "sup_gone"]
      })
      assert.deepStrictEqual([unknown.tag, unknown.kind], ["RecordNotFound", "supplier"])
      assert.include(unknown.message, "no supplier \"sup_nothere\", \"sup_gone\"")
    }))

  it.effect("market_screen_risks as of 2019: the inhabilitación is in force and high", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      yield* TestClock.setTime(Date.parse("2019-12-01T12:00:00Z"))
      const answer = screen(yield* call(principal, "market_screen_risks", { supplier_ids: ["sup_4"] }))
      assert.deepStrictEqual([answer.flagged, answer.results[0]?.highest_severity, answer.results[0]?.findings[0]?.in_force], [
        1,
        "high",
        true
      ])
      assert.deepStrictEqual([answer.flagged_amount_total, answer.flagged_amount_average, answer.share_flagged], [30000, 30000, 100])
    }))

  it.effect("market_screen_risks with nothing flagged answers zeros and null averages; invalid RFCs are refused by position", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const response = yield* call(principal, "market_screen_risks", { rfcs: [RFC_CLEAN] })
      const clean = screen(response)
      assert.deepStrictEqual(
        [clean.screened, clean.flagged, clean.share_flagged, clean.flagged_amount_total, clean.flagged_amount_average],
        [1, 0, 0, 0, null]
      )
      assert.include(response.hint ?? "", "None of the 1 screened")
      const invalid = yield* failure(principal, "market_screen_risks", { rfcs: ["GFM010122DZ9", "GFM010122DZ8", "nope"] })
      assert.deepStrictEqual([invalid.tag, invalid.paths], ["InvalidInput", ["input.rfcs.1", "input.rfcs.2"]])
      const tooMany = yield* failure(principal, "market_screen_risks", {
        rfcs: Array.from({ length: 60 }, () => RFC_CLEAN),
        supplier_ids: Array.from({ length: 41 }, (_, i) => `sup_${i}`)
      })
      assert.deepStrictEqual(tooMany.paths, ["input.rfcs"])
      assert.include(tooMany.message, "at most 100")
      const nothing = yield* failure(principal, "market_screen_risks", {})
      assert.deepStrictEqual(nothing.paths, ["input.rfcs"])
    }))
})
