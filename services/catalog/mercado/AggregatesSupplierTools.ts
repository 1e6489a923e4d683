import { Effect } from "effect"
import {
  type Finding,
  ScreenRisksInput,
  ScreenRisksOutput,
  SupplierHistoryInput,
  SupplierHistoryOutput
} from "../../../schema/catalog/MercadoAggregatesSupplier.ts"
import { RecordNotFound } from "../../../schema/Errors.ts"
import { action } from "../../tools/Tool.ts"
import { MarketAggregates, type RiskRow, type SupplierRow } from "./Aggregates.ts"
import { amountOf, averageOf, figuresOf, shareOf, sumOf } from "./AggregatesFigures.ts"
import { refOf, stateName } from "./AggregatesLabels.ts"
import { countBySeverity, highestOf, isFlagging, severityOf } from "./AggregatesRisk.ts"
import { common, loaded } from "./AggregatesSpec.ts"
import { inForce, today } from "./InForce.ts"
import { Unknown } from "./Unknown.ts"

const findingOf = (r: RiskRow, day: string): Finding => ({
  id: r.id,
  list: r.list,
  status: r.status,
  severity: severityOf(r.list, r.status, r.endsOn, day),
  in_force: inForce(r, day),
  rfc: r.rfc,
  name: r.name,
  authority: r.authority,
  published_on: r.publishedOn,
  ends_on: r.endsOn,
  amount: r.amount === null ? null : amountOf(r.amount),
  detail: r.detail
})

const supplierOf = (s: SupplierRow) => ({
  id: s.id,
  rfc: s.rfc,
  name: s.name,
  persona: s.persona,
  state: s.state,
  state_name: stateName(s.state),
  size: s.size,
  status: s.status,
  sector: s.sector
})

export const marketGetSupplierHistory = action({
  ...common,
  stages: ["buscando"],
  id: "market_get_supplier_history",
  label: "Historial de proveedor",
  description:
    "One Mexican government supplier (id or RFC) year by year: awards, total and average per year, its top buying units, its procedure mix, overall total and average, and a summary of its risk records (SAT 69-B, SAT 69, sanctions) with their severity.",
  input: SupplierHistoryInput,
  output: SupplierHistoryOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* loaded
      const aggregates = yield* MarketAggregates
      const wanted = input.rfc === undefined
        ? { by: "id" as const, value: input.supplier_id ?? "" }
        : { by: "rfc" as const, value: input.rfc }
      const supplier = yield* aggregates.supplier(wanted.by, wanted.value)
      if (supplier === undefined) {
        return yield* RecordNotFound.of("supplier", [wanted.value], {
          hint: "Find the supplier with market_search_suppliers (by name or RFC)",
          next_actions: [{ tool: "market_search_suppliers", reason: "find the supplier by name or RFC" }]
        })
      }
      const [years, procedures, units, risks, day] = yield* Effect.all([
        aggregates.supplierYears(supplier.id, input.year_from, input.year_to),
        aggregates.supplierProcedures(supplier.id, input.year_from, input.year_to),
        aggregates.supplierUnits(supplier.id, input.year_from, input.year_to, input.top_units),
        aggregates.risks([supplier.rfc], [supplier.id]),
        today
      ], { concurrency: 2 })
      const overall = sumOf(years)
      const findings = risks.map((r) => findingOf(r, day))
      if (overall.n === 0) yield* ctx.annotate({ hint: "This supplier has no awards in these years." })
      return {
        // by id or by RFC, the same supplier and years: the same ref
        ref: refOf("market_get_supplier_history", [supplier.id, input.year_from, input.year_to, input.top_units]),
        supplier: supplierOf(supplier),
        ...figuresOf(overall),
        years_active: years.length,
        average_per_year: averageOf(overall.cents, years.length),
        years: years.map((y) => ({ year: Number(y.key), ...figuresOf(y), share: shareOf(y.cents, overall.cents) })),
        top_units: units.map((u) => ({
          unit_id: u.key,
          name: u.name,
          agency: u.agency,
          ...figuresOf(u),
          share: shareOf(u.cents, overall.cents)
        })),
        procedures: procedures.map((p) => ({
          procedure_type: p.procedureType,
          ...figuresOf(p),
          share_n: shareOf(p.n, overall.n),
          share: shareOf(p.cents, overall.cents)
        })),
        risks: {
          findings_total: findings.length,
          highest_severity: highestOf(findings.map((f) => f.severity)),
          by_severity: countBySeverity(findings.map((f) => f.severity)),
          findings
        }
      }
    })
})

interface Entry {
  readonly input: string
  readonly rfc: string | null
  readonly supplier: SupplierRow | undefined
}

/** Each RFC and supplier id once, in the order given: an id and the RFC of the same supplier are one entry. */
const entriesOf = (
  rfcs: ReadonlyArray<string>,
  ids: ReadonlyArray<string>,
  byRfc: ReadonlyMap<string, SupplierRow>,
  byId: ReadonlyMap<string, SupplierRow>
): ReadonlyArray<Entry> => {
  const seen = new Set<string>()
  const entries: Array<Entry> = []
  const add = (entry: Entry, key: string) => {
    if (seen.has(key)) return
    seen.add(key)
    entries.push(entry)
  }
  for (const rfc of rfcs) add({ input: rfc, rfc, supplier: byRfc.get(rfc) }, `rfc:${rfc}`)
  for (const id of ids) {
    const supplier = byId.get(id)
    add({ input: id, rfc: supplier?.rfc ?? null, supplier }, supplier === undefined ? `id:${id}` : `rfc:${supplier.rfc}`)
  }
  return entries
}

export const marketScreenRisks = action({
  ...common,
  stages: ["buscando"],
  id: "market_screen_risks",
  label: "Revisar riesgos",
  description:
    "Screen up to 100 RFCs or supplier ids against the SAT 69-B list (definitivo critical, presunto high), the SAT 69 lists (medium) and sanctioned suppliers (inhabilitación high, multa medium); desvirtuados, sentencias favorables and ended sanctions are info. Per RFC its findings; a summary of how many are flagged, by severity, and the total and average contracted with the flagged ones.",
  input: ScreenRisksInput,
  output: ScreenRisksOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* loaded
      const aggregates = yield* MarketAggregates
      const rfcs: ReadonlyArray<string> = input.rfcs ?? []
      const ids = input.supplier_ids ?? []
      yield* (yield* Unknown).refuse({ suppliers: ids })
      const [byRfc, byId, day] = yield* Effect.all([aggregates.suppliers("rfc", rfcs), aggregates.suppliers("id", ids), today])
      const entries = entriesOf(rfcs, ids, new Map(byRfc.map((s) => [s.rfc, s])), new Map(byId.map((s) => [s.id, s])))
      const known = entries.flatMap((e) => (e.supplier === undefined ? [] : [e.supplier.id]))
      const [risks, awards] = yield* Effect.all([
        aggregates.risks(entries.flatMap((e) => (e.rfc === null ? [] : [e.rfc])), known),
        aggregates.awardsBySupplier(known)
      ], { concurrency: 2 })
      const results = entries.map((e) => {
        const findings = risks
          .filter((r) => r.rfc === e.rfc || (e.supplier !== undefined && r.supplierId === e.supplier.id))
          .map((r) => findingOf(r, day))
        const highest = highestOf(findings.map((f) => f.severity))
        const contracted = e.supplier === undefined ? undefined : awards.get(e.supplier.id)
        return {
          input: e.input,
          rfc: e.rfc,
          supplier_id: e.supplier?.id ?? null,
          name: e.supplier?.name ?? findings[0]?.name ?? null,
          known_supplier: e.supplier !== undefined,
          flagged: isFlagging(highest),
          highest_severity: highest,
          findings,
          awards_total: contracted?.n ?? 0,
          amount_total: amountOf(contracted?.cents ?? 0),
          cents: contracted?.cents ?? 0
        }
      })
      const flagged = results.filter((r) => r.flagged)
      const flaggedSum = sumOf(flagged.map((r) => ({ n: r.awards_total, cents: r.cents })))
      const first = flagged[0]
      yield* ctx.annotate(
        first === undefined
          ? { hint: `None of the ${results.length} screened has a risk finding in force.` }
          : first.supplier_id === null
          ? {}
          : {
            next_actions: [{
              tool: "market_get_supplier_history",
              reason: `the awards of ${first.name ?? first.input}, flagged ${first.highest_severity}`,
              input: { supplier_id: first.supplier_id }
            }]
          }
      )
      return {
        ref: refOf("market_screen_risks", input),
        screened: results.length,
        flagged: flagged.length,
        share_flagged: shareOf(flagged.length, results.length),
        by_severity: {
          ...countBySeverity(results.flatMap((r) => (r.highest_severity === null ? [] : [r.highest_severity]))),
          none: results.filter((r) => r.highest_severity === null).length
        },
        findings_total: results.reduce((acc, r) => acc + r.findings.length, 0),
        flagged_awards_total: flaggedSum.n,
        flagged_amount_total: amountOf(flaggedSum.cents),
        flagged_amount_average: averageOf(flaggedSum.cents, flagged.length),
        results: results.map(({ cents: _cents, ...result }) => result)
      }
    })
})
