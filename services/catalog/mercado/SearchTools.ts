import { Effect } from "effect"
import {
  MarketSearchAwardsInput,
  MarketSearchAwardsOutput,
  MarketSearchOpportunitiesInput,
  MarketSearchOpportunitiesOutput,
  MarketSearchPermitsInput,
  MarketSearchPermitsOutput,
  MarketSearchRisksInput,
  MarketSearchRisksOutput,
  MarketSearchSuppliersInput,
  MarketSearchSuppliersOutput
} from "../../../schema/catalog/Mercado.ts"
import { action } from "../../tools/Tool.ts"
import { wordsOf } from "../empresas/SearchCursor.ts"
import { annotatePage, common, given, type PageRequest, paging } from "./Paging.ts"
import { awards, opportunities, permits, risks, suppliers } from "./Searches.ts"
import { toAward, toOpportunity, toPermit, toRisk, toSupplier } from "./Shapes.ts"
import { listed } from "./Unknown.ts"

const pageOf = (input: { readonly limit: number; readonly cursor?: string }): PageRequest =>
  input.cursor === undefined ? { limit: input.limit } : { limit: input.limit, cursor: input.cursor }

const searchSuppliers = paging("market_search_suppliers", suppliers)

export const marketSearchSuppliers = action({
  ...common,
  id: "market_search_suppliers",
  label: "Buscar proveedores",
  description:
    "Search Mexico's government suppliers by name (case and accents ignored), state, size, sector, RFC and whether they are on a risk list. Pages of up to 100 with a sealed cursor (30 minutes); total counted up to 10,000.",
  input: MarketSearchSuppliersInput,
  output: MarketSearchSuppliersOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const filter = {
        words: yield* wordsOf(input.q, "q"),
        ...given({ state: input.state, size: input.size, sector: input.sector, rfc: input.rfc, hasRisk: input.has_risk })
      }
      const { head, rows } = yield* searchSuppliers(filter, pageOf(input), ctx)
      const first = rows[0]
      yield* annotatePage(
        ctx,
        "suppliers",
        head,
        first === undefined ? [] : [
          { tool: "market_get_supplier", reason: `profile, awards and risks of ${first.name}`, input: { id: first.id } },
          { tool: "market_search_awards", reason: `contracts won by ${first.name}`, input: { supplier_id: first.id } }
        ]
      )
      return { ...head, suppliers: rows.map(toSupplier) }
    })
})

const searchOpportunities = paging("market_search_opportunities", opportunities)

export const marketSearchOpportunities = action({
  ...common,
  id: "market_search_opportunities",
  label: "Buscar licitaciones",
  description:
    "Search Mexico's public procurement procedures (licitaciones, invitaciones, adjudicaciones directas) by title words, state, buying unit (CLAVEUC) or agency, procedure type, contract type, status and publication dates; newest first. Pages of up to 100 with a sealed cursor.",
  input: MarketSearchOpportunitiesInput,
  output: MarketSearchOpportunitiesOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const filter = {
        words: yield* wordsOf(input.q, "q"),
        ...given({
          state: input.state,
          unit: input.unit,
          agency: input.agency,
          procedureType: input.procedure_type,
          contractType: input.contract_type,
          status: input.status,
          publishedFrom: input.published_from,
          publishedTo: input.published_to
        })
      }
      const { head, rows } = yield* searchOpportunities(filter, pageOf(input), ctx, { unitClaves: listed(input.unit) })
      const first = rows[0]
      yield* annotatePage(
        ctx,
        "procedures",
        head,
        first === undefined ? [] : [
          { tool: "market_get_opportunity", reason: `the procedure ${first.number} with its unit and awards`, input: { id: first.id } }
        ]
      )
      return { ...head, opportunities: rows.map(toOpportunity) }
    })
})

const searchAwards = paging("market_search_awards", awards)

export const marketSearchAwards = action({
  ...common,
  id: "market_search_awards",
  label: "Buscar contratos adjudicados",
  description:
    "Search awarded government contracts in Mexico by supplier (id or RFC), buying unit, state, year or signing dates, amount (MXN), procedure type and contract type; newest first. Pages of up to 100 with a sealed cursor. For sums and averages use market_aggregate_awards.",
  input: MarketSearchAwardsInput,
  output: MarketSearchAwardsOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const filter = given({
        supplierId: input.supplier_id,
        rfc: input.rfc,
        unit: input.unit,
        state: input.state,
        year: input.year,
        signedFrom: input.signed_from,
        signedTo: input.signed_to,
        amountMin: input.amount_min,
        amountMax: input.amount_max,
        procedureType: input.procedure_type,
        contractType: input.contract_type
      })
      const { head, rows } = yield* searchAwards(filter, pageOf(input), ctx, {
        suppliers: listed(input.supplier_id),
        supplierRfcs: listed(input.rfc),
        unitClaves: listed(input.unit)
      })
      const first = rows[0]
      yield* annotatePage(
        ctx,
        "awards",
        head,
        first === undefined ? [] : [
          { tool: "market_get_supplier", reason: `the supplier ${first.supplier_name}`, input: { id: first.supplier_id } },
          { tool: "market_get_opportunity", reason: `the procedure ${first.opportunity_number}`, input: { id: first.opportunity_id } }
        ]
      )
      return { ...head, awards: rows.map(toAward) }
    })
})

const searchPermits = paging("market_search_permits", permits)

export const marketSearchPermits = action({
  ...common,
  id: "market_search_permits",
  label: "Buscar permisos",
  description:
    "Search permits held in Mexico (CRE fuel permits, REPSE, COFEPRIS, SEMARNAT) by kind, state, holder RFC, status and words of the holder's name or permit number; newest first. Pages of up to 100 with a sealed cursor.",
  input: MarketSearchPermitsInput,
  output: MarketSearchPermitsOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const filter = {
        words: yield* wordsOf(input.q, "q"),
        ...given({ kind: input.kind, state: input.state, rfc: input.rfc, status: input.status })
      }
      const { head, rows } = yield* searchPermits(filter, pageOf(input), ctx)
      const held = rows.flatMap((p) => (p.supplier_id === null ? [] : [{ id: p.supplier_id, number: p.number }]))[0]
      yield* annotatePage(
        ctx,
        "permits",
        head,
        held === undefined ? [] : [
          { tool: "market_get_supplier", reason: `the supplier holding ${held.number}`, input: { id: held.id } }
        ]
      )
      return { ...head, permits: rows.map(toPermit) }
    })
})

const searchRisks = paging("market_search_risks", risks)

export const marketSearchRisks = action({
  ...common,
  id: "market_search_risks",
  label: "Buscar listas de riesgo",
  description:
    "Search risk records of Mexican taxpayers: SAT art. 69-B (simulated operations: presunto, definitivo …), SAT art. 69 (firmes, no localizados …) and sanctioned suppliers (multa, inhabilitación), by RFC, list, status or name words; newest first. Pages of up to 100 with a sealed cursor.",
  input: MarketSearchRisksInput,
  output: MarketSearchRisksOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const filter = {
        words: yield* wordsOf(input.q, "q"),
        ...given({ rfc: input.rfc, list: input.list, status: input.status })
      }
      const { head, rows } = yield* searchRisks(filter, pageOf(input), ctx)
      const listed = rows.flatMap((r) => (r.supplier_id === null ? [] : [{ id: r.supplier_id, name: r.name }]))[0]
      yield* annotatePage(
        ctx,
        "risk records",
        head,
        listed === undefined ? [] : [
          { tool: "market_get_supplier", reason: `the supplier ${listed.name}`, input: { id: listed.id } }
        ]
      )
      return { ...head, risks: rows.map(toRisk) }
    })
})
