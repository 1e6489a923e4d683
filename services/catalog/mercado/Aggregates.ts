import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import {
  type AwardFilter,
  type CountSuppliersInput,
  type GroupBy,
  Persona,
  ProcedureType,
  RiskList,
  RiskStatus,
  SupplierSize,
  SupplierStatus
} from "../../../schema/catalog/MercadoAggregates.ts"
import { MexicoStateCode } from "../../../schema/geo/MexicoStates.ts"
import { centsOf, type Summed } from "./AggregatesFigures.ts"
import {
  type AwardScope,
  awardsOfSuppliers,
  groupedAwards,
  type Query,
  risksOf,
  segment,
  type Source,
  supplierAwardsBy,
  supplierBy,
  supplierNames,
  suppliersBy,
  suppliersCount,
  unitNames
} from "./AggregatesQueries.ts"

const Cents = Schema.transform(Schema.String, Schema.Int, { strict: true, decode: centsOf, encode: (c) => (c / 100).toFixed(2) })

const SummedRow = Schema.Struct({ key: Schema.String, n: Schema.Int, amount: Cents })
const GroupedRow = Schema.Struct({ ...SummedRow.fields, groups: Schema.Int, allN: Schema.Int, allAmount: Cents })
const SegmentRow = Schema.Struct({ n: Schema.Int, amount: Cents, suppliers: Schema.Int })
const CountRow = Schema.Struct({ key: Schema.String, suppliers: Schema.Int, n: Schema.Int, amount: Cents })
const LabelRow = Schema.Struct({ key: Schema.String, label: Schema.String })
const ProcedureRow = Schema.Struct({ ...SummedRow.fields, key: ProcedureType })
const UnitRow = Schema.Struct({ ...SummedRow.fields, name: Schema.String, agency: Schema.String })

export const SupplierRow = Schema.Struct({
  id: Schema.String,
  rfc: Schema.String,
  name: Schema.String,
  persona: Persona,
  state: MexicoStateCode,
  size: SupplierSize,
  status: SupplierStatus,
  sector: Schema.String
})
export type SupplierRow = typeof SupplierRow.Type

export const RiskRow = Schema.Struct({
  id: Schema.String,
  rfc: Schema.String,
  name: Schema.String,
  supplierId: Schema.NullOr(Schema.String),
  list: RiskList,
  status: RiskStatus,
  authority: Schema.String,
  publishedOn: Schema.String,
  endsOn: Schema.NullOr(Schema.String),
  amount: Schema.NullOr(Cents),
  detail: Schema.String
})
export type RiskRow = typeof RiskRow.Type

export interface Keyed extends Summed {
  readonly key: string
}

const keyed = (row: typeof SummedRow.Type): Keyed => ({ key: row.key, n: row.n, cents: row.amount })

/** Sums over the shared Mercado data set: the award rollup where it answers, the awards and suppliers otherwise. */
export class MarketAggregates extends Effect.Service<MarketAggregates>()("brein/catalog/mercado/MarketAggregates", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const run = <A, I>(schema: Schema.Schema<A, I>, query: Query) =>
      sql.unsafe(query.text, query.params).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(schema))), Effect.orDie)

    /** The `top` largest groups, how many groups there are, and the overall figures of the question. */
    const awardGroups = Effect.fn("MarketAggregates.awardGroups")(
      function* (source: Source, groupBy: GroupBy, scope: AwardScope, top: number) {
        yield* Effect.annotateCurrentSpan({ source, groupBy })
        const rows = yield* run(GroupedRow, groupedAwards(source, groupBy, scope, top))
        const first = rows[0]
        return {
          groups: rows.map(keyed),
          count: first?.groups ?? 0,
          overall: { n: first?.allN ?? 0, cents: first?.allAmount ?? 0 }
        }
      }
    )

    const labels = Effect.fn("MarketAggregates.labels")(function* (of: "unit" | "supplier", keys: ReadonlyArray<string>) {
      const rows = yield* run(LabelRow, of === "unit" ? unitNames(keys) : supplierNames(keys))
      return new Map(rows.map((r) => [r.key, r.label]))
    })

    const segmentOf = Effect.fn("MarketAggregates.segment")(function* (filter: AwardFilter) {
      const [row] = yield* run(SegmentRow, segment(filter))
      return { n: row?.n ?? 0, cents: row?.amount ?? 0, suppliers: row?.suppliers ?? 0 }
    })

    const countSuppliers = Effect.fn("MarketAggregates.countSuppliers")(function* (input: CountSuppliersInput, today: string) {
      const rows = yield* run(CountRow, suppliersCount(input, today))
      return rows.map((r) => ({ key: r.key, suppliers: r.suppliers, n: r.n, cents: r.amount }))
    })

    const supplier = Effect.fn("MarketAggregates.supplier")(function* (by: "id" | "rfc", value: string) {
      const [row] = yield* run(SupplierRow, supplierBy(by, value))
      return row
    })

    const suppliers = Effect.fn("MarketAggregates.suppliers")(function* (by: "id" | "rfc", values: ReadonlyArray<string>) {
      return values.length === 0 ? [] : yield* run(SupplierRow, suppliersBy(by, values))
    })

    const supplierYears = Effect.fn("MarketAggregates.supplierYears")(
      function* (supplierId: string, from: number | undefined, to: number | undefined) {
        return (yield* run(SummedRow, supplierAwardsBy("year", supplierId, from, to, 0))).map(keyed)
      }
    )

    const supplierProcedures = Effect.fn("MarketAggregates.supplierProcedures")(
      function* (supplierId: string, from: number | undefined, to: number | undefined) {
        const rows = yield* run(ProcedureRow, supplierAwardsBy("procedure_type", supplierId, from, to, 0))
        return rows.map((r) => ({ procedureType: r.key, ...keyed(r) }))
      }
    )

    const supplierUnits = Effect.fn("MarketAggregates.supplierUnits")(
      function* (supplierId: string, from: number | undefined, to: number | undefined, top: number) {
        const rows = yield* run(UnitRow, supplierAwardsBy("unit", supplierId, from, to, top))
        return rows.map((r) => ({ ...keyed(r), name: r.name, agency: r.agency }))
      }
    )

    const risks = Effect.fn("MarketAggregates.risks")(function* (rfcs: ReadonlyArray<string>, supplierIds: ReadonlyArray<string>) {
      return rfcs.length === 0 && supplierIds.length === 0 ? [] : yield* run(RiskRow, risksOf(rfcs, supplierIds))
    })

    const awardsBySupplier = Effect.fn("MarketAggregates.awardsBySupplier")(function* (supplierIds: ReadonlyArray<string>) {
      const rows = supplierIds.length === 0 ? [] : yield* run(SummedRow, awardsOfSuppliers(supplierIds))
      return new Map(rows.map((r) => [r.key, keyed(r)]))
    })

    return {
      awardGroups,
      labels,
      segment: segmentOf,
      countSuppliers,
      supplier,
      suppliers,
      supplierYears,
      supplierProcedures,
      supplierUnits,
      risks,
      awardsBySupplier
    }
  })
}) {}
