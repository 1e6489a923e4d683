import { Effect, Option } from "effect"
import {
  MarketCapabilities,
  MarketCapabilitiesInput,
  MarketGetOpportunityInput,
  MarketGetSupplierInput,
  MarketOpportunity,
  MarketSupplier
} from "../../../schema/catalog/MercadoRecords.ts"
import { RecordNotFound } from "../../../schema/Errors.ts"
import { action } from "../../tools/Tool.ts"
import { Market, stateName } from "./Market.ts"
import { common } from "./Paging.ts"
import { toAward, toOpportunity, toPermit, toRisk, toSupplier } from "./Shapes.ts"

export const marketGetSupplier = action({
  ...common,
  id: "market_get_supplier",
  label: "Ver proveedor",
  description:
    "One government supplier of Mexico by id or RFC: profile, its awards (count, total and average in MXN, first and last), its records on the risk lists and its permits.",
  input: MarketGetSupplierInput,
  output: MarketSupplier,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const market = yield* Market
      yield* market.dataset()
      const by = input.id === undefined ? { rfc: input.rfc ?? "" } : { id: input.id }
      const found = yield* market.supplier(by)
      if (Option.isNone(found)) {
        return yield* RecordNotFound.of("supplier", [input.id ?? input.rfc ?? ""], {
          hint: "Find the supplier with market_search_suppliers (by name, state or RFC)",
          next_actions: [{ tool: "market_search_suppliers", reason: "find the supplier by name, state or RFC" }]
        })
      }
      const supplier = found.value
      const [awards, risks, permits] = yield* Effect.all([
        market.awardTotals("supplier_id", supplier.id),
        market.risksOf(supplier.rfc),
        market.permitsOf(supplier.rfc, supplier.id)
      ], { concurrency: 3 })
      yield* ctx.annotate({
        next_actions: [
          { tool: "market_search_awards", reason: `the contracts ${supplier.name} won, newest first`, input: { supplier_id: supplier.id } },
          { tool: "market_get_supplier_history", reason: `${supplier.name}'s awards year by year`, input: { supplier_id: supplier.id } }
        ]
      })
      return {
        ...toSupplier(supplier),
        awards: { ref: `supplier_awards:${supplier.id}`, ...awards },
        risks: risks.map(toRisk),
        permits: permits.map(toPermit)
      }
    })
})

export const marketGetOpportunity = action({
  ...common,
  id: "market_get_opportunity",
  label: "Ver licitación",
  description:
    "One public procurement procedure of Mexico by id or procedure number (LA-019GYR047-E51-2025): its buying unit and agency, dates, estimated amount and the awards it gave (count, total and average in MXN).",
  input: MarketGetOpportunityInput,
  output: MarketOpportunity,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const market = yield* Market
      yield* market.dataset()
      const by = input.id === undefined ? { number: input.number ?? "" } : { id: input.id }
      const found = yield* market.opportunity(by)
      if (Option.isNone(found)) {
        return yield* RecordNotFound.of("opportunity", [input.id ?? input.number ?? ""], {
          hint: "Find the procedure with market_search_opportunities (by title words, state, unit or dates)",
          next_actions: [{ tool: "market_search_opportunities", reason: "find the procedure by title, state or buying unit" }]
        })
      }
      const opportunity = found.value
      const [unit, awards, totals] = yield* Effect.all([
        market.unit(opportunity.unit_id),
        market.awardsOf(opportunity.id),
        market.awardTotals("opportunity_id", opportunity.id)
      ], { concurrency: 3 })
      const buyer = yield* Option.match(unit, {
        onNone: () => Effect.dieMessage(`the unit ${opportunity.unit_id} of ${opportunity.id} is missing`),
        onSome: (u) => Effect.succeed({ ...u, state_name: stateName(u.state) })
      })
      const winner = awards[0]
      yield* ctx.annotate({
        next_actions: [
          { tool: "market_search_opportunities", reason: `other procedures of ${buyer.name}`, input: { unit: buyer.clave } },
          ...(winner === undefined ? [] : [
            { tool: "market_get_supplier", reason: `the supplier ${winner.supplier_name}`, input: { id: winner.supplier_id } }
          ])
        ]
      })
      return {
        ...toOpportunity(opportunity),
        unit: buyer,
        awards: awards.map(toAward),
        awards_ref: `opportunity_awards:${opportunity.id}`,
        awards_count: totals.count,
        awards_total_amount: totals.total_amount,
        awards_average_amount: totals.average_amount
      }
    })
})

const ANSWERS: ReadonlyArray<{ readonly tool: string; readonly answers: string }> = [
  { tool: "market_search_suppliers", answers: "Which suppliers match a name, state, size, sector or RFC; which are on a risk list?" },
  { tool: "market_get_supplier", answers: "Who is this supplier: profile, awards won (total, average), risk records, permits?" },
  {
    tool: "market_search_opportunities",
    answers: "Which procedures were published by a unit or agency, in a state, of a type, in a period?"
  },
  { tool: "market_get_opportunity", answers: "What is this procedure: its unit, dates, amounts and who won it?" },
  { tool: "market_search_awards", answers: "Which contracts were signed by a supplier, unit or state, in a year, within an amount range?" },
  { tool: "market_search_permits", answers: "Which permits (CRE, REPSE, COFEPRIS, SEMARNAT) does a company hold, in which state?" },
  { tool: "market_search_risks", answers: "Is an RFC on SAT 69-B, SAT 69 or the sanctioned suppliers list, and in which status?" },
  { tool: "market_count_suppliers", answers: "How many suppliers match a segment (state, size, sector)?" },
  { tool: "market_compare_segments", answers: "How do segments (states, sizes, contract types) compare in awards?" },
  { tool: "market_aggregate_awards", answers: "How much was awarded (total, average, count) by state, year, type or size?" },
  { tool: "market_get_supplier_history", answers: "How did a supplier's awards evolve year by year?" },
  { tool: "market_screen_risks", answers: "Which of a set of RFCs carry risk records?" }
]

export const marketCapabilities = action({
  ...common,
  stages: [],
  id: "market_capabilities",
  label: "Cobertura de Mercado",
  description:
    "What the Mercado data set (Mexican public procurement) covers, counted from the data: when it was loaded, its years, how many suppliers, units, procedures, awards, permits and risk records, the states present, the procedure and contract types, permit kinds, risk lists and sectors, and which tool answers which question.",
  input: MarketCapabilitiesInput,
  output: MarketCapabilities,
  handler: () =>
    Effect.gen(function* () {
      const market = yield* Market
      const loaded = yield* market.dataset()
      const covered = yield* market.coverage(loaded)
      return {
        ref: `market_capabilities:${loaded.stamp}`,
        dataset: { seed: loaded.seed, loaded_at: loaded.loaded_at, first_year: loaded.first_year, last_year: loaded.last_year },
        counts: {
          suppliers: covered.suppliers,
          units: covered.units,
          opportunities: covered.opportunities,
          awards: covered.awards,
          permits: covered.permits,
          risks: covered.risks
        },
        states: covered.states.map((s) => ({ ...s, name: stateName(s.code) })),
        procedure_types: covered.procedure_types,
        contract_types: covered.contract_types,
        permit_kinds: covered.permit_kinds,
        risk_lists: covered.risk_lists,
        sectors: covered.sectors,
        tools: ANSWERS
      }
    })
})
