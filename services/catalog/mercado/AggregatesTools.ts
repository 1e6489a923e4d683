import { Effect } from "effect"
import {
  AggregateAwardsInput,
  AggregateAwardsOutput,
  CompareSegmentsInput,
  CompareSegmentsOutput,
  CountSuppliersInput,
  CountSuppliersOutput
} from "../../../schema/catalog/MercadoAggregates.ts"
import { action } from "../../tools/Tool.ts"
import { MarketAggregates } from "./Aggregates.ts"
import { amountOf, averageOf, figuresOf, ratioOf, shareOf, type Summed, sumOf } from "./AggregatesFigures.ts"
import { labelOf, refOf } from "./AggregatesLabels.ts"
import { sourceFor } from "./AggregatesQueries.ts"
import { common, loaded } from "./AggregatesSpec.ts"
import { today } from "./InForce.ts"
import { listed, Unknown } from "./Unknown.ts"

const remainder = (overall: Summed, shown: Summed): Summed => ({ n: overall.n - shown.n, cents: overall.cents - shown.cents })

export const marketCountSuppliers = action({
  ...common,
  stages: ["buscando", "prospectando", "con_lista"],
  id: "market_count_suppliers",
  label: "Contar proveedores",
  description:
    "How many government suppliers of Mexico match: by state, size, persona, sector, awards in a year range, risk findings. Answers the total, awards and amount per supplier (averages), and a breakdown by state, size, persona or sector, each group with its total, share and average.",
  input: CountSuppliersInput,
  output: CountSuppliersOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* loaded
      const rows = yield* (yield* MarketAggregates).countSuppliers(input, yield* today)
      const figures = (suppliers: number, s: Summed, all: number) => ({
        total: suppliers,
        share: shareOf(suppliers, all),
        awards_total: s.n,
        amount_total: amountOf(s.cents),
        amount_average: averageOf(s.cents, suppliers)
      })
      const total = rows.reduce((acc, r) => acc + r.suppliers, 0)
      const overall = sumOf(rows)
      const shown = rows.slice(0, input.top)
      const rest = rows.slice(input.top)
      const restSuppliers = rest.reduce((acc, r) => acc + r.suppliers, 0)
      if (total === 0) yield* ctx.annotate({ hint: "No supplier matches these filters: drop a filter or widen the year range." })
      return {
        ref: refOf("market_count_suppliers", input),
        total,
        awards_total: overall.n,
        amount_total: amountOf(overall.cents),
        awards_average: ratioOf(overall.n, total),
        amount_average: averageOf(overall.cents, total),
        amount_average_per_award: averageOf(overall.cents, overall.n),
        by: input.by,
        groups: shown.map((r) => ({ key: r.key, label: labelOf(input.by, r.key), ...figures(r.suppliers, r, total) })),
        other: rest.length === 0 ? null : { groups: rest.length, ...figures(restSuppliers, sumOf(rest), total) }
      }
    })
})

export const marketCompareSegments = action({
  ...common,
  stages: ["buscando"],
  id: "market_compare_segments",
  label: "Comparar segmentos",
  description:
    "Compare 2 to 6 segments of Mexican government awards, each a filter (states, sizes, contract and procedure types, years, sector): per segment the awards, total amount, average award, distinct suppliers, amount per supplier and share of the combined total; plus the combined total and average.",
  input: CompareSegmentsInput,
  output: CompareSegmentsOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* loaded
      const aggregates = yield* MarketAggregates
      const sums = yield* Effect.forEach(input.segments, (segment) => {
        const { label: _label, ...filter } = segment
        return aggregates.segment(filter)
      }, { concurrency: 2 })
      const combined = sumOf(sums)
      const labels = input.segments.map((s, i) => s.label ?? `segment ${i + 1}`)
      const empty = labels.filter((_, i) => sums[i]?.n === 0)
      if (empty.length > 0) {
        yield* ctx.annotate({ hint: `No awards in ${empty.join(", ")}: widen its filters (years, states, types) to compare it.` })
      }
      return {
        ref: refOf("market_compare_segments", input),
        ...figuresOf(combined),
        segments: sums.map((s, i) => ({
          label: labels[i] ?? `segment ${i + 1}`,
          ...figuresOf(s),
          suppliers: s.suppliers,
          average_per_supplier: averageOf(s.cents, s.suppliers),
          share: shareOf(s.cents, combined.cents)
        }))
      }
    })
})

export const marketAggregateAwards = action({
  ...common,
  stages: ["buscando"],
  id: "market_aggregate_awards",
  label: "Agregar adjudicaciones",
  description:
    "Sum Mexican government awards by state, year, contract type, procedure type, supplier size, buying unit or supplier, with filters. Groups largest first (top N, the rest summed in other), each with awards, total, average and share; plus the overall awards, total and average.",
  input: AggregateAwardsInput,
  output: AggregateAwardsOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* loaded
      const aggregates = yield* MarketAggregates
      const { group_by: groupBy, top, ...scope } = input
      yield* (yield* Unknown).refuse({ suppliers: listed(scope.supplier_id), units: listed(scope.unit_id) })
      const source = sourceFor(groupBy, scope)
      const { count, groups, overall } = yield* aggregates.awardGroups(source, groupBy, scope, top)
      const names = groupBy === "unit" || groupBy === "supplier"
        ? yield* aggregates.labels(groupBy, groups.map((g) => g.key))
        : new Map<string, string>()
      const rest = remainder(overall, sumOf(groups))
      const first = groups[0]
      if (overall.n === 0) yield* ctx.annotate({ hint: "No awards match these filters: drop a filter or widen the year range." })
      else if (groupBy === "supplier" && first !== undefined) {
        yield* ctx.annotate({
          next_actions: [{
            tool: "market_get_supplier_history",
            reason: `the history of the largest supplier, ${names.get(first.key) ?? first.key}`,
            input: { supplier_id: first.key }
          }]
        })
      }
      return {
        ref: refOf("market_aggregate_awards", input),
        group_by: groupBy,
        source,
        ...figuresOf(overall),
        groups_total: count,
        groups: groups.map((g) => ({
          key: g.key,
          label: names.get(g.key) ?? labelOf(groupBy, g.key),
          ...figuresOf(g),
          share: shareOf(g.cents, overall.cents)
        })),
        other: count > groups.length
          ? { groups: count - groups.length, ...figuresOf(rest), share: shareOf(rest.cents, overall.cents) }
          : null
      }
    })
})
