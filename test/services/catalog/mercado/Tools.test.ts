import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import {
  MarketSearchAwardsOutput,
  MarketSearchOpportunitiesOutput,
  MarketSearchPermitsOutput,
  MarketSearchRisksOutput,
  MarketSearchSuppliersOutput
} from "../../../../schema/catalog/Mercado.ts"
import { MarketCapabilities, MarketOpportunity, MarketSupplier } from "../../../../schema/catalog/MercadoRecords.ts"
import { LOADED_AT, RFC } from "./Fixtures.ts"
import { callAs, failure, MercadoTest, principalOf } from "./Support.ts"

const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id)

layer(MercadoTest, { timeout: 120_000 })("mercado tools", (it) => {
  it.effect("market_capabilities: coverage counted from the data set, and which tool answers what", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const { page } = yield* callAs(MarketCapabilities, principal, "market_capabilities", {})
      assert.deepStrictEqual(page.dataset, { seed: "fixture", loaded_at: LOADED_AT, first_year: 2024, last_year: 2025 })
      assert.deepStrictEqual(page.counts, { suppliers: 4, units: 2, opportunities: 5, awards: 6, permits: 3, risks: 4 })
      assert.deepStrictEqual(page.states.map((s) => [s.code, s.name, s.suppliers, s.awards]), [
        ["MX-CMX", "Ciudad de México", 0, 2],
        ["MX-GUA", "Guanajuato", 1, 0],
        ["MX-JAL", "Jalisco", 2, 4],
        ["MX-NLE", "Nuevo León", 1, 0]
      ])
      assert.deepStrictEqual(page.procedure_types, [{ value: "adjudicacion_directa", count: 4 }, { value: "licitacion_publica", count: 2 }])
      assert.deepStrictEqual(page.contract_types, [
        { value: "adquisiciones", count: 2 },
        { value: "obra_publica", count: 2 },
        { value: "servicios", count: 2 }
      ])
      assert.deepStrictEqual(page.risk_lists, [{ value: "sat_69b", count: 3 }, { value: "sancion", count: 1 }])
      assert.deepStrictEqual(page.sectors, [
        { value: "construccion", count: 2 },
        { value: "combustibles", count: 1 },
        { value: "medicamentos", count: 1 }
      ])
      assert.strictEqual(page.permit_kinds.length, 3)
      assert.include(page.tools.map((t) => t.tool), "market_search_awards")
      assert.strictEqual(page.ref, `market_capabilities:fixture@${LOADED_AT}`)
    }))

  it.effect("market_search_suppliers: name without accents, state by name, risk, size, sector and RFC", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const search = (input: object) => callAs(MarketSearchSuppliersOutput, principal, "market_search_suppliers", input)
      const byName = yield* search({ q: "constructora nandu" })
      assert.deepStrictEqual(ids(byName.page.suppliers), ["sup_1"])
      const first = byName.page.suppliers[0]
      assert.deepStrictEqual([first?.ref, first?.state, first?.state_name, first?.has_risk], ["supplier:sup_1", "MX-JAL", "Jalisco", false])
      assert.deepStrictEqual(byName.next_actions?.map((a) => a.tool), ["market_get_supplier", "market_search_awards"])
      const jalisco = (yield* search({ state: "jalisco" })).page
      assert.deepStrictEqual([ids(jalisco.suppliers), jalisco.total, jalisco.total_is_lower_bound, jalisco.cursor], [
        ["sup_1", "sup_3"],
        2,
        false,
        null
      ])
      assert.deepStrictEqual(ids((yield* search({ has_risk: true })).page.suppliers), ["sup_2", "sup_3"])
      assert.deepStrictEqual(ids((yield* search({ has_risk: false })).page.suppliers), ["sup_1", "sup_4"])
      assert.deepStrictEqual(ids((yield* search({ size: "micro" })).page.suppliers), ["sup_3"])
      assert.deepStrictEqual(ids((yield* search({ sector: " Construccion " })).page.suppliers), ["sup_1", "sup_3"])
      assert.deepStrictEqual(ids((yield* search({ rfc: RFC.norte.toLowerCase() })).page.suppliers), ["sup_4"])
      const none = yield* search({ q: "zzqqxx" })
      assert.strictEqual(none.page.total, 0)
      assert.include(none.hint ?? "", "No suppliers match")
    }))

  it.effect("market_search_opportunities: newest first, by state, title, agency, unit and dates", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const search = (input: object) =>
        Effect.map(callAs(MarketSearchOpportunitiesOutput, principal, "market_search_opportunities", input), (r) => r.page)
      const cdmx = yield* search({ state: "CDMX" })
      assert.deepStrictEqual([ids(cdmx.opportunities), cdmx.total], [["op_4", "op_5", "op_3"], 3])
      const computo = (yield* search({ q: "computo" })).opportunities
      assert.deepStrictEqual(computo.map((o) => [o.id, o.unit_clave, o.agency, o.procedure_type, o.estimated_amount]), [
        ["op_3", "006E00001", "SAT", "invitacion_tres", 2500000]
      ])
      assert.deepStrictEqual(ids((yield* search({ agency: "imss" })).opportunities), ["op_2", "op_1"])
      assert.deepStrictEqual(ids((yield* search({ unit: "019gyr047", procedure_type: "licitacion_publica" })).opportunities), ["op_1"])
      assert.deepStrictEqual(
        ids((yield* search({ published_from: "2025-02-01", published_to: "2025-03-01" })).opportunities),
        ["op_4", "op_5"]
      )
      assert.deepStrictEqual(ids((yield* search({ status: "active" })).opportunities), ["op_3"])
    }))

  it.effect("market_search_awards: newest first (ties by id), by supplier, RFC, unit, year and amount", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const search = (input: object) =>
        Effect.map(callAs(MarketSearchAwardsOutput, principal, "market_search_awards", input), (r) => r.page)
      const all = yield* search({})
      assert.deepStrictEqual([ids(all.awards), all.total], [["aw_6", "aw_5", "aw_4", "aw_3", "aw_2", "aw_1"], 6])
      const top = all.awards[0]
      assert.deepStrictEqual(
        [top?.supplier_name, top?.unit_clave, top?.opportunity_number, top?.amount, top?.currency, top?.state_name, top?.ref],
        ["Constructora Ñandú SA de CV", "006E00001", "AA-006E00001-E5-2025", 450000, "MXN", "Ciudad de México", "award:aw_6"]
      )
      assert.deepStrictEqual(ids((yield* search({ rfc: RFC.nandu })).awards), ["aw_6", "aw_4", "aw_1"])
      assert.deepStrictEqual(ids((yield* search({ supplier_id: "sup_2" })).awards), ["aw_2"])
      assert.deepStrictEqual(ids((yield* search({ year: 2025 })).awards), ["aw_6", "aw_5"])
      assert.deepStrictEqual(ids((yield* search({ amount_min: 1_000_000 })).awards), ["aw_5", "aw_4", "aw_1"])
      assert.deepStrictEqual(ids((yield* search({ amount_min: 120000, amount_max: 850000.5 })).awards), ["aw_6", "aw_3", "aw_2"])
      assert.deepStrictEqual(ids((yield* search({ unit: "006E00001" })).awards), ["aw_6", "aw_5"])
      assert.deepStrictEqual(ids((yield* search({ signed_from: "2024-06-01", signed_to: "2024-12-31", state: "Jalisco" })).awards), [
        "aw_4",
        "aw_3",
        "aw_2"
      ])
      assert.deepStrictEqual(ids((yield* search({ procedure_type: "licitacion_publica", contract_type: "obra_publica" })).awards), [
        "aw_4",
        "aw_1"
      ])
    }))

  it.effect("market_search_awards and _opportunities: an unknown supplier id or RFC or buying unit is RecordNotFound, not an empty page", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const supplier = yield* failure(principal, "market_search_awards", { supplier_id: "sup_nothere" })
      assert.deepStrictEqual([supplier.tag, supplier.error._tag === "RecordNotFound" ? supplier.error.kind : null], [
        "RecordNotFound",
        "supplier"
      ])
      assert.include(supplier.message, "no supplier \"sup_nothere\"")
      const unit = yield* failure(principal, "market_search_awards", { unit: "999X99999", year: 2025 })
      assert.deepStrictEqual([unit.tag, unit.error._tag === "RecordNotFound" ? unit.error.kind : null], ["RecordNotFound", "unit"])
      assert.include(unit.message, "no unit \"999X99999\"")
      // an RFC that is no supplier's (Farmacias Unidas holds a permit, never an award), and a unit on the procedures' search
      const rfc = yield* failure(principal, "market_search_awards", { rfc: RFC.farmacias })
      assert.deepStrictEqual([rfc.tag, rfc.error._tag === "RecordNotFound" ? rfc.error.kind : null], ["RecordNotFound", "supplier"])
      assert.include(rfc.message, RFC.farmacias)
      const procedures = yield* failure(principal, "market_search_opportunities", { unit: "999X99999" })
      assert.deepStrictEqual([procedures.tag, procedures.error._tag === "RecordNotFound" ? procedures.error.kind : null], [
        "RecordNotFound",
        "unit"
      ])
      // a known RFC and unit still search
      const known = yield* callAs(MarketSearchAwardsOutput, principal, "market_search_awards", { rfc: RFC.nandu })
      assert.deepStrictEqual(ids(known.page.awards), ["aw_6", "aw_4", "aw_1"])
    }))

  it.effect("market_search_awards: sealed pages cover every match once, the last page has no cursor", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const search = (input: object) =>
        Effect.map(callAs(MarketSearchAwardsOutput, principal, "market_search_awards", input), (r) => r.page)
      const pages: Array<ReadonlyArray<string>> = []
      let page = yield* search({ limit: 2 })
      pages.push(ids(page.awards))
      while (page.cursor !== null) {
        const next = yield* search({ limit: 2, cursor: page.cursor })
        assert.deepStrictEqual([next.total, next.search_id], [6, page.search_id])
        pages.push(ids(next.awards))
        page = next
      }
      assert.deepStrictEqual(pages, [["aw_6", "aw_5"], ["aw_4", "aw_3"], ["aw_2", "aw_1"]])
    }))

  it.effect("market_search_permits and market_search_risks: by kind, holder, state, list, status and name", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const permits = (input: object) =>
        Effect.map(callAs(MarketSearchPermitsOutput, principal, "market_search_permits", input), (r) => r.page.permits)
      assert.deepStrictEqual(ids(yield* permits({})), ["pm_2", "pm_3", "pm_1"])
      assert.deepStrictEqual(ids(yield* permits({ kind: "repse" })), ["pm_2"])
      assert.deepStrictEqual(ids(yield* permits({ rfc: RFC.norte })), ["pm_1"])
      assert.deepStrictEqual(ids(yield* permits({ state: "Nuevo Leon" })), ["pm_1"])
      assert.deepStrictEqual(ids(yield* permits({ q: "farmacias", status: "vencido" })), ["pm_3"])
      assert.deepStrictEqual(ids(yield* permits({ q: "5866" })), ["pm_1"])
      const risks = (input: object) =>
        Effect.map(callAs(MarketSearchRisksOutput, principal, "market_search_risks", input), (r) => r.page.risks)
      const sat = yield* risks({ list: "sat_69b" })
      assert.deepStrictEqual(sat.map((r) => [r.id, r.status, r.cleared]), [
        ["ri_1", "presunto", false],
        ["ri_3", "definitivo", false],
        ["ri_2", "desvirtuado", true]
      ])
      assert.deepStrictEqual((yield* risks({ rfc: RFC.bajio })).map((r) => [r.id, r.list, r.amount]), [["ri_4", "sancion", 150000]])
      assert.deepStrictEqual(ids(yield* risks({ q: "fantasma" })), ["ri_3"])
      const mismatch = yield* failure(principal, "market_search_risks", { list: "sancion", status: "presunto" })
      assert.deepStrictEqual([mismatch.tag, mismatch.paths], ["InvalidInput", ["input.status"]])
    }))

  it.effect("market_get_supplier: profile, award totals and average, risks and permits; by id or RFC", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const nandu = (yield* callAs(MarketSupplier, principal, "market_get_supplier", { id: "sup_1" })).page
      assert.deepStrictEqual(nandu.awards, {
        ref: "supplier_awards:sup_1",
        count: 3,
        total_amount: 13_950_000,
        average_amount: 4_650_000,
        first_signed_on: "2024-03-25",
        last_signed_on: "2025-02-15"
      })
      assert.deepStrictEqual([nandu.risks, nandu.permits, nandu.rupc_folio], [[], [], "R-1001"])
      const bajio = yield* callAs(MarketSupplier, principal, "market_get_supplier", { rfc: RFC.bajio })
      assert.deepStrictEqual([bajio.page.id, bajio.page.has_risk, ids(bajio.page.risks), ids(bajio.page.permits)], [
        "sup_2",
        true,
        ["ri_4"],
        ["pm_2"]
      ])
      assert.deepStrictEqual([bajio.page.awards.count, bajio.page.awards.total_amount], [1, 850000.5])
      assert.include(bajio.next_actions?.map((a) => a.tool) ?? [], "market_search_awards")
      const missing = yield* failure(principal, "market_get_supplier", { id: "sup_nothere" })
      assert.strictEqual(missing.tag, "RecordNotFound")
      assert.include(missing.message, "sup_nothere")
      const both = yield* failure(principal, "market_get_supplier", { id: "sup_1", rfc: RFC.nandu })
      assert.deepStrictEqual([both.tag, both.paths], ["InvalidInput", ["input.id"]])
    }))

  it.effect("market_get_opportunity: by procedure number (any case) with its unit and awards", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const got = (yield* callAs(MarketOpportunity, principal, "market_get_opportunity", { number: "aa-019gyr047-e2-2024" })).page
      assert.deepStrictEqual([got.id, got.unit.clave, got.unit.agency_name, got.unit.state_name], [
        "op_2",
        "019GYR047",
        "Instituto Mexicano del Seguro Social",
        "Jalisco"
      ])
      assert.deepStrictEqual([ids(got.awards), got.awards_count, got.awards_total_amount, got.awards_average_amount], [
        ["aw_3", "aw_2"],
        2,
        970000.5,
        485000.25
      ])
      const open = (yield* callAs(MarketOpportunity, principal, "market_get_opportunity", { id: "op_3" })).page
      assert.deepStrictEqual([open.awards, open.awards_count, open.awards_average_amount, open.awarded_on], [[], 0, null, null])
      const missing = yield* failure(principal, "market_get_opportunity", { number: "LA-000000000-E9-2020" })
      assert.strictEqual(missing.tag, "RecordNotFound")
      assert.include(missing.error._tag === "RecordNotFound" ? missing.error.hint ?? "" : "", "market_search_opportunities")
    }))

  it.effect("bad input: an unknown state or sector, an RFC with a wrong check character, a limit out of range, reversed dates", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const state = yield* failure(principal, "market_search_suppliers", { state: "MX-XXX" })
      assert.deepStrictEqual([state.tag, state.paths], ["InvalidInput", ["input.state"]])
      assert.include(state.message, "is not a state of Mexico")
      for (
        const [tool, input] of [["market_search_suppliers", { sector: "salud" }], ["market_count_suppliers", { sector: "Salud" }]] as const
      ) {
        const sector = yield* failure(principal, tool, input)
        assert.deepStrictEqual([sector.tag, sector.paths], ["InvalidInput", ["input.sector"]], tool)
        assert.include(sector.message, "must be a sector: one of medicamentos, equipo_medico", tool)
      }
      const rfc = yield* failure(principal, "market_search_awards", { rfc: "CNA0503141I5" })
      assert.deepStrictEqual([rfc.tag, rfc.paths], ["InvalidInput", ["input.rfc"]])
      assert.include(rfc.message, "check character")
      for (const limit of [0, 101, 2.5]) {
        const wrong = yield* failure(principal, "market_search_permits", { limit })
        assert.deepStrictEqual([wrong.tag, wrong.paths], ["InvalidInput", ["input.limit"]])
        assert.include(wrong.message, "from 1 to 100")
      }
      const dates = yield* failure(principal, "market_search_opportunities", { published_from: "2025-03-01", published_to: "2025-01-01" })
      assert.deepStrictEqual([dates.tag, dates.paths], ["InvalidInput", ["input.published_to"]])
      const day = yield* failure(principal, "market_search_awards", { signed_from: "2025-02-30" })
      assert.deepStrictEqual([day.tag, day.paths], ["InvalidInput", ["input.signed_from"]])
      const both = yield* failure(principal, "market_search_awards", { year: 2024, signed_from: "2024-01-01" })
      assert.deepStrictEqual([both.tag, both.paths], ["InvalidInput", ["input.year"]])
    }))

  it.effect("without a data set loaded every tool says so and how to load it", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM market_dataset`
      const restore = sql`DELETE FROM market_dataset`.pipe(Effect.zipRight(insertDatasetRow), Effect.orDie)
      yield* Effect.gen(function* () {
        const tools: ReadonlyArray<readonly [string, object]> = [
          ["market_capabilities", {}],
          ["market_search_suppliers", {}],
          ["market_get_supplier", { id: "sup_1" }],
          // before the ids it names are looked up
          ["market_search_awards", { supplier_id: "sup_nothere" }],
          // the aggregates too: zeros would read as "nothing matched"
          ["market_count_suppliers", {}],
          ["market_aggregate_awards", { group_by: "state" }],
          ["market_compare_segments", { segments: [{ states: ["MX-JAL"] }, { states: ["MX-CMX"] }] }],
          ["market_get_supplier_history", { supplier_id: "sup_1" }],
          ["market_screen_risks", { rfcs: [RFC.perez] }]
        ]
        for (const [tool, input] of tools) {
          const missing = yield* failure(principal, tool, input)
          assert.strictEqual(missing.tag, "RecordNotFound", tool)
          assert.include(missing.message, "no Mercado data set is loaded")
          assert.include(missing.error._tag === "RecordNotFound" ? missing.error.hint ?? "" : "", "brein seed")
        }
      }).pipe(Effect.ensuring(restore))
    }))
})

const insertDatasetRow = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql`INSERT INTO market_dataset (seed, suppliers, awards, first_year, last_year, loaded_at)
      VALUES ('fixture', 4, 6, 2024, 2025, ${LOADED_AT}::timestamptz)`
)
