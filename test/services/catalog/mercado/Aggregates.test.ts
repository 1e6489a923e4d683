import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  AggregateAwardsOutput,
  type AwardFilter,
  CompareSegmentsOutput,
  CountSuppliersOutput,
  type GroupBy
} from "../../../../schema/catalog/MercadoAggregates.ts"
import { MarketAggregates } from "../../../../services/catalog/mercado/Aggregates.ts"
import { as, call, cents, failure, principalNow } from "./AggregateCalls.ts"
import { MercadoFixtures } from "./AggregateFixtures.ts"

const aggregate = as(AggregateAwardsOutput)

/** Groups and "other" add up to the overall figures, to the cent. */
const assertAddsUp = (answer: typeof AggregateAwardsOutput.Type) => {
  const parts = [...answer.groups, ...(answer.other === null ? [] : [answer.other])]
  assert.strictEqual(parts.reduce((acc, g) => acc + g.n, 0), answer.n)
  assert.strictEqual(parts.reduce((acc, g) => acc + cents(g.total), 0), cents(answer.total))
  assert.strictEqual(answer.groups.length + (answer.other?.groups ?? 0), answer.groups_total)
}

layer(MercadoFixtures, { timeout: 120_000 })("Mercado aggregates", (it) => {
  it.effect("market_aggregate_awards by state: read from the rollup, largest first, the rest in other, figures with the ref", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const response = yield* call(principal, "market_aggregate_awards", { group_by: "state", top: 2 })
      const answer = aggregate(response)
      assert.strictEqual(answer.source, "rollup")
      assert.deepStrictEqual([answer.n, answer.total, answer.average, answer.groups_total], [11, 5280000.51, 480000.05, 3])
      assert.deepStrictEqual(answer.groups, [
        { key: "MX-NLE", label: "Nuevo León", n: 3, total: 2330000.01, average: 776666.67, share: 44.1 },
        { key: "MX-JAL", label: "Jalisco", n: 4, total: 1700000, average: 425000, share: 32.2 }
      ])
      // 1,250,000.50 over 4 awards is 312,500.125: averages round half up
      assert.deepStrictEqual(answer.other, { groups: 1, n: 4, total: 1250000.5, average: 312500.13, share: 23.7 })
      assertAddsUp(answer)
      assert.match(answer.ref, /^market_aggregate_awards:[0-9a-f]{16}$/)
      assert.strictEqual(response.meta.audit_status, "recorded")
      const again = aggregate(yield* call(principal, "market_aggregate_awards", { top: 2, group_by: "state" }))
      assert.strictEqual(again.ref, answer.ref)
    }))

  it.effect("market_aggregate_awards with filters: states by alias, a year range, by procedure type", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const answer = aggregate(
        yield* call(principal, "market_aggregate_awards", { group_by: "procedure_type", states: ["Jalisco", "CDMX"], year_from: 2024 })
      )
      assert.strictEqual(answer.source, "rollup")
      assert.deepStrictEqual([answer.n, answer.total, answer.average], [5, 1785000.25, 357000.05])
      assert.deepStrictEqual(answer.groups.map((g) => [g.key, g.label, g.n, g.total, g.average, g.share]), [
        ["licitacion_publica", "Licitación pública", 1, 900000, 900000, 50.4],
        ["adjudicacion_directa", "Adjudicación directa", 3, 634999.75, 211666.58, 35.6],
        ["invitacion_tres", "Invitación a cuando menos tres personas", 1, 250000.5, 250000.5, 14]
      ])
      assert.isNull(answer.other)
      assertAddsUp(answer)
    }))

  it.effect("the rollup and the awards answer the same numbers for every rollup dimension and filter", () =>
    Effect.gen(function* () {
      const aggregates = yield* MarketAggregates
      const dimensions: ReadonlyArray<GroupBy> = ["state", "year", "contract_type", "procedure_type", "supplier_size"]
      const filters: ReadonlyArray<AwardFilter> = [
        {},
        { year_from: 2023, year_to: 2023 },
        { states: ["MX-JAL", "MX-NLE"], sizes: ["micro", "no_mipyme", "mediana"] },
        { contract_types: ["adquisiciones", "servicios"], procedure_types: ["adjudicacion_directa"] },
        { states: ["MX-YUC"] }
      ]
      for (const groupBy of dimensions) {
        for (const filter of filters) {
          for (const top of [1, 3, 50]) {
            const rollup = yield* aggregates.awardGroups("rollup", groupBy, filter, top)
            const awards = yield* aggregates.awardGroups("awards", groupBy, filter, top)
            assert.deepStrictEqual(rollup, awards, `${groupBy} ${JSON.stringify(filter)} top ${top}`)
          }
        }
      }
      // through the tool: the same question grouped by a rollup dimension and by supplier (read from the awards)
      const principal = yield* principalNow
      const byYear = aggregate(yield* call(principal, "market_aggregate_awards", { group_by: "year", year_from: 2024 }))
      const bySupplier = aggregate(yield* call(principal, "market_aggregate_awards", { group_by: "supplier", year_from: 2024 }))
      assert.deepStrictEqual([byYear.source, bySupplier.source], ["rollup", "awards"])
      assert.deepStrictEqual([bySupplier.n, bySupplier.total, bySupplier.average], [byYear.n, byYear.total, byYear.average])
      assert.deepStrictEqual([byYear.n, byYear.total, byYear.average], [6, 2085000.26, 347500.04])
      assertAddsUp(bySupplier)
    }))

  it.effect("market_aggregate_awards reads the rollup on its dimensions, and the awards once a filter is not one", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const sql = yield* SqlClient.SqlClient
      // a rollup cell no award backs: only a read of the rollup can see it
      const probe = sql`INSERT INTO market_award_rollup VALUES ('MX-YUC', 2024, 'servicios', 'adjudicacion_directa', 'micro', 2, 10.00, 1)`
      yield* Effect.acquireUseRelease(probe, () =>
        Effect.gen(function* () {
          const fromRollup = aggregate(yield* call(principal, "market_aggregate_awards", { group_by: "state", states: ["Yucatán"] }))
          assert.deepStrictEqual([fromRollup.source, fromRollup.n, fromRollup.total, fromRollup.average], ["rollup", 2, 10, 5])
          const response = yield* call(principal, "market_aggregate_awards", { group_by: "unit", states: ["YUC"] })
          const fromAwards = aggregate(response)
          assert.deepStrictEqual([fromAwards.source, fromAwards.n, fromAwards.total, fromAwards.average], ["awards", 0, 0, null])
          assert.deepStrictEqual([fromAwards.groups, fromAwards.other, fromAwards.groups_total], [[], null, 0])
          assert.include(response.hint ?? "", "No awards match")
          const bySector = aggregate(yield* call(principal, "market_aggregate_awards", { group_by: "state", sector: "medicamentos" }))
          assert.strictEqual(bySector.source, "awards")
          assert.deepStrictEqual([bySector.n, bySector.total], [4, 3230000.01])
        }), () => Effect.orDie(sql`DELETE FROM market_award_rollup WHERE state = 'MX-YUC'`))
    }))

  it.effect("market_aggregate_awards by supplier and unit: names as labels, a next action to the largest supplier's history", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const response = yield* call(principal, "market_aggregate_awards", { group_by: "supplier", top: 2 })
      const bySupplier = aggregate(response)
      assert.deepStrictEqual(bySupplier.groups.map((g) => [g.key, g.label, g.n, g.total, g.share]), [
        ["sup_5", "Laboratorios del Norte (LNO050314277)", 3, 3200000.01, 60.6],
        ["sup_1", "Grupo Ferretero del Centro (GFM010122DZ9)", 3, 1750000.5, 33.1]
      ])
      assert.deepStrictEqual(bySupplier.other, { groups: 3, n: 5, total: 330000, average: 66000, share: 6.2 })
      assertAddsUp(bySupplier)
      assert.deepStrictEqual(response.next_actions?.map((a) => [a.tool, a.input]), [["market_get_supplier_history", {
        supplier_id: "sup_5"
      }]])
      const byUnit = aggregate(yield* call(principal, "market_aggregate_awards", { group_by: "unit", supplier_id: "sup_1" }))
      assert.deepStrictEqual(byUnit.groups.map((g) => [g.label, g.n, g.total, g.average]), [
        ["Secretaría de Administración de Jalisco", 2, 1500000, 750000],
        ["IMSS Coordinación de Abastecimiento", 1, 250000.5, 250000.5]
      ])
    }))

  it.effect("market_compare_segments: per segment n, total, average, suppliers and share; an empty segment has a null average", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const response = yield* call(principal, "market_compare_segments", {
        segments: [
          { label: "Obra en Jalisco", states: ["MX-JAL"], contract_types: ["obra_publica"] },
          { label: "Nuevo León 2023", states: ["Nuevo Leon"], year_from: 2023, year_to: 2023 },
          { sector: "medicamentos" },
          { label: "Yucatán", states: ["31"] }
        ]
      })
      const answer = as(CompareSegmentsOutput)(response)
      assert.deepStrictEqual([answer.n, answer.total, answer.average], [8, 6760000.01, 845000])
      assert.deepStrictEqual(answer.segments, [
        { label: "Obra en Jalisco", n: 2, total: 1500000, average: 750000, suppliers: 1, average_per_supplier: 1500000, share: 22.2 },
        { label: "Nuevo León 2023", n: 2, total: 2030000, average: 1015000, suppliers: 2, average_per_supplier: 1015000, share: 30 },
        { label: "segment 3", n: 4, total: 3230000.01, average: 807500, suppliers: 2, average_per_supplier: 1615000.01, share: 47.8 },
        { label: "Yucatán", n: 0, total: 0, average: null, suppliers: 0, average_per_supplier: null, share: 0 }
      ])
      assert.include(response.hint ?? "", "No awards in Yucatán")
      const none = as(CompareSegmentsOutput)(
        yield* call(principal, "market_compare_segments", { segments: [{ states: ["MX-YUC"] }, { year_from: 2030 }] })
      )
      assert.deepStrictEqual([none.n, none.total, none.average], [0, 0, null])
      assert.deepStrictEqual(none.segments.map((s) => [s.average, s.share]), [[null, null], [null, null]])
    }))

  it.effect("market_count_suppliers: the total, averages per supplier and a breakdown whose groups and other add up", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const answer = as(CountSuppliersOutput)(yield* call(principal, "market_count_suppliers", { top: 2 }))
      assert.deepStrictEqual(
        [
          answer.total,
          answer.awards_total,
          answer.amount_total,
          answer.awards_average,
          answer.amount_average,
          answer.amount_average_per_award
        ],
        [6, 11, 5280000.51, 1.83, 880000.09, 480000.05]
      )
      assert.deepStrictEqual(answer.groups, [
        { key: "MX-JAL", label: "Jalisco", total: 2, share: 33.3, awards_total: 5, amount_total: 1950000.5, amount_average: 975000.25 },
        { key: "MX-NLE", label: "Nuevo León", total: 2, share: 33.3, awards_total: 4, amount_total: 3230000.01, amount_average: 1615000.01 }
      ])
      // the never-awarded supplier of Yucatán counts, with no awards
      assert.deepStrictEqual(answer.other, {
        groups: 2,
        total: 2,
        share: 33.3,
        awards_total: 2,
        amount_total: 100000,
        amount_average: 50000
      })
      const parts = [...answer.groups, ...(answer.other === null ? [] : [answer.other])]
      assert.strictEqual(parts.reduce((acc, g) => acc + g.total, 0), answer.total)
      assert.strictEqual(parts.reduce((acc, g) => acc + cents(g.amount_total), 0), cents(answer.amount_total))

      const awarded = as(CountSuppliersOutput)(yield* call(principal, "market_count_suppliers", { awarded_from: 2024, by: "size" }))
      assert.deepStrictEqual([awarded.total, awarded.awards_total, awarded.amount_total, awarded.amount_average], [
        4,
        6,
        2085000.26,
        521250.07
      ])
      assert.deepStrictEqual(awarded.groups.map((g) => [g.key, g.label, g.total, g.amount_total]), [
        ["mediana", "Mediana", 1, 750000.5],
        ["micro", "Micro", 1, 54999.75],
        ["no_mipyme", "No MIPYME", 1, 1200000.01],
        ["pequena", "Pequeña", 1, 80000]
      ])
      // in force on the suite's date: definitivo, presunto and a multa; not the cleared one nor the ended inhabilitación
      const risky = as(CountSuppliersOutput)(yield* call(principal, "market_count_suppliers", { has_risk: true, by: "persona" }))
      assert.deepStrictEqual([risky.total, risky.groups.map((g) => [g.key, g.total])], [3, [["moral", 3]]])
      const clean = as(CountSuppliersOutput)(yield* call(principal, "market_count_suppliers", { has_risk: false, states: ["MX-CMX"] }))
      assert.strictEqual(clean.total, 1)
      const response = yield* call(principal, "market_count_suppliers", { states: ["Yucatán"], sizes: ["micro"] })
      const none = as(CountSuppliersOutput)(response)
      assert.deepStrictEqual(
        [none.total, none.amount_total, none.awards_average, none.amount_average, none.amount_average_per_award, none.groups, none.other],
        [0, 0, null, null, null, [], null]
      )
      assert.include(response.hint ?? "", "No supplier matches")
    }))

  it.effect("market_aggregate_awards: an unknown supplier_id or unit_id is RecordNotFound, not zeros", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const supplier = yield* failure(principal, "market_aggregate_awards", { group_by: "year", supplier_id: "sup_nothere" })
      assert.deepStrictEqual([supplier.tag, supplier.kind], ["RecordNotFound", "supplier"])
      const unit = yield* failure(principal, "market_aggregate_awards", { group_by: "supplier", unit_id: "u_nothere" })
      assert.deepStrictEqual([unit.tag, unit.kind], ["RecordNotFound", "unit"])
      assert.include(unit.message, "no unit \"u_nothere\"")
      const clave = yield* failure(principal, "market_aggregate_awards", { group_by: "supplier", unit_id: "020000003" })
      assert.deepStrictEqual([clave.tag, clave.kind], ["RecordNotFound", "unit"])
      assert.include(clave.message, "no unit \"020000003\": a unit id looks like uc_…, not a CLAVEUC")
      assert.include(clave.message, "market_search_awards")
      const known = aggregate(yield* call(principal, "market_aggregate_awards", { group_by: "year", unit_id: "u_2", supplier_id: "sup_1" }))
      assert.isAbove(known.n, 0)
    }))

  it.effect("bad input is refused with the field named: unknown state, segments out of range, unknown group_by, years reversed", () =>
    Effect.gen(function* () {
      const principal = yield* principalNow
      const state = yield* failure(principal, "market_aggregate_awards", { group_by: "state", states: ["MX-JAL", "Texas"] })
      assert.deepStrictEqual([state.tag, state.paths], ["InvalidInput", ["input.states.1"]])
      assert.include(state.message, "is not a state of Mexico")
      const countState = yield* failure(principal, "market_count_suppliers", { states: ["MX-XXX"] })
      assert.deepStrictEqual(countState.paths, ["input.states.0"])
      const one = yield* failure(principal, "market_compare_segments", { segments: [{ states: ["MX-JAL"] }] })
      assert.deepStrictEqual(one.paths, ["input.segments"])
      assert.include(one.message, "must have 2 to 6 segments")
      const seven = yield* failure(principal, "market_compare_segments", { segments: Array.from({ length: 7 }, () => ({})) })
      assert.deepStrictEqual(seven.paths, ["input.segments"])
      const segmentState = yield* failure(principal, "market_compare_segments", { segments: [{}, { states: ["Narnia"] }] })
      assert.deepStrictEqual(segmentState.paths, ["input.segments.1.states.0"])
      const groupBy = yield* failure(principal, "market_aggregate_awards", { group_by: "region" })
      assert.deepStrictEqual(groupBy.paths, ["input.group_by"])
      const missing = yield* failure(principal, "market_aggregate_awards", {})
      assert.deepStrictEqual(missing.paths, ["input.group_by"])
      const years = yield* failure(principal, "market_aggregate_awards", { group_by: "year", year_from: 2024, year_to: 2022 })
      assert.deepStrictEqual(years.paths, ["input.year_to"])
      const size = yield* failure(principal, "market_count_suppliers", { sizes: ["grande"] })
      assert.deepStrictEqual(size.paths, ["input.sizes.0"])
    }))
})
