import { SqlClient } from "@effect/sql"
import { Effect, Option, Ref, Schema } from "effect"
import { BuyingUnit } from "../../../schema/catalog/MercadoRecords.ts"
import { RecordNotFound } from "../../../schema/Errors.ts"
import { mexicoStateByCode } from "../../../schema/geo/MexicoStates.ts"
import type { Position } from "../SealedCursor.ts"
import { Coverage, coverageQuery } from "./Coverage.ts"
import { today } from "./InForce.ts"
import { countQuery, pageQuery, type Query, type Search, select } from "./Query.ts"
import {
  AWARD_COLUMNS,
  AwardRow,
  AWARDS_FROM,
  OPPORTUNITY_COLUMNS,
  OpportunityRow,
  PERMIT_COLUMNS,
  PermitRow,
  RISK_COLUMNS,
  RiskRow,
  supplierColumns,
  SupplierRow
} from "./Searches.ts"

const Dataset = Schema.Struct({
  seed: Schema.String,
  loaded_at: Schema.String,
  first_year: Schema.Int,
  last_year: Schema.Int
})
export type Dataset = typeof Dataset.Type & { readonly stamp: string }

const Count = Schema.Struct({ n: Schema.Int })
const Totals = Schema.Struct({
  count: Schema.Int,
  total_amount: Schema.Number,
  average_amount: Schema.NullOr(Schema.Number),
  first_signed_on: Schema.NullOr(Schema.String),
  last_signed_on: Schema.NullOr(Schema.String)
})
const UnitRow = Schema.Struct(BuyingUnit.fields).pipe(Schema.omit("state_name"))

export const stateName = (code: string) => mexicoStateByCode.get(code)?.name ?? code

export const noDataset = new RecordNotFound({
  kind: "market_dataset",
  ids: [],
  message: "no Mercado data set is loaded: Mexican procurement data is not available yet",
  hint: "An operator loads the Mercado data set with: brein seed"
})

/** Reads of the Mercado data set (Mexican public procurement), shared by every workspace. */
export class Market extends Effect.Service<Market>()("brein/catalog/mercado/Market", {
  effect: Effect.gen(function* () {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const run = <A, I>(schema: Schema.Schema<A, I>, query: Query) =>
      sql.unsafe(query.text, query.params).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(schema))), Effect.orDie)
    const one = <A, I>(schema: Schema.Schema<A, I>, query: Query) => Effect.map(run(schema, query), (rows) => Option.fromNullable(rows[0]))
    const cached = yield* Ref.make(Option.none<Coverage & { readonly stamp: string }>())

    /** The data set loaded, with the stamp a cursor is bound to; none loaded is a RecordNotFound telling to seed. */
    const dataset = Effect.fn("Market.dataset")(function* () {
      const row = yield* one(Dataset, {
        text: `SELECT seed, to_char(loaded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS loaded_at, first_year, last_year
               FROM market_dataset`,
        params: []
      })
      if (Option.isNone(row)) return yield* noDataset
      return { ...row.value, stamp: `${row.value.seed}@${row.value.loaded_at}` } satisfies Dataset
    })

    /**
     * The keyset pages and the capped count of one search, as of `day` (YYYY-MM-DD): the caller reads
     * the Clock's day once, so a page and its count judge what depends on the date on the same day.
     */
    const searcher = <F, Row extends { readonly id: string }>(search: Search<F, Row>) => ({
      page: Effect.fn("Market.page")(function* (filter: F, day: string, at: Position | undefined, limit: number) {
        return yield* run(search.row, pageQuery(search, filter, day, at, limit))
      }),
      count: Effect.fn("Market.count")(function* (filter: F, day: string) {
        return Option.match(yield* one(Count, countQuery(search, filter, day)), { onNone: () => 0, onSome: (r) => r.n })
      })
    })

    const supplier = Effect.fn("Market.supplier")(function* (by: { readonly id: string } | { readonly rfc: string }) {
      const [column, value] = "id" in by ? ["s.id", by.id] : ["s.rfc", by.rfc]
      return yield* one(
        SupplierRow,
        select(supplierColumns(yield* today), "market_suppliers s", [{ sql: `${column} = ?`, params: [value] }])
      )
    })

    const awardTotals = Effect.fn("Market.awardTotals")(function* (column: "supplier_id" | "opportunity_id", id: string) {
      const totals = yield* one(Totals, {
        text: `SELECT count(*)::int AS count, coalesce(sum(amount), 0)::float8 AS total_amount,
                 round(avg(amount), 2)::float8 AS average_amount, min(signed_on)::text AS first_signed_on,
                 max(signed_on)::text AS last_signed_on
               FROM market_awards WHERE ${column} = $1`,
        params: [id]
      })
      return Option.getOrElse(totals, () => ({
        count: 0,
        total_amount: 0,
        average_amount: null,
        first_signed_on: null,
        last_signed_on: null
      }))
    })

    const risksOf = Effect.fn("Market.risksOf")(function* (rfc: string) {
      return yield* run(RiskRow, {
        text: `SELECT ${RISK_COLUMNS} FROM market_risks r WHERE r.rfc = $1 ORDER BY r.published_on DESC, r.id DESC LIMIT 50`,
        params: [rfc]
      })
    })

    const permitsOf = Effect.fn("Market.permitsOf")(function* (rfc: string, supplierId: string) {
      return yield* run(PermitRow, {
        text: `SELECT ${PERMIT_COLUMNS} FROM market_permits p WHERE p.holder_rfc = $1 OR p.supplier_id = $2
               ORDER BY p.issued_on DESC, p.id DESC LIMIT 50`,
        params: [rfc, supplierId]
      })
    })

    const opportunity = Effect.fn("Market.opportunity")(function* (by: { readonly id: string } | { readonly number: string }) {
      const [column, value] = "id" in by ? ["o.id", by.id] : ["o.number", by.number]
      return yield* one(OpportunityRow, {
        text: `SELECT ${OPPORTUNITY_COLUMNS} FROM market_opportunities o JOIN market_units u ON u.id = o.unit_id WHERE ${column} = $1`,
        params: [value]
      })
    })

    const unit = Effect.fn("Market.unit")(function* (id: string) {
      return yield* one(UnitRow, {
        text: "SELECT id, clave, name, agency, agency_name, government, state FROM market_units WHERE id = $1",
        params: [id]
      })
    })

    const awardsOf = Effect.fn("Market.awardsOf")(function* (opportunityId: string) {
      return yield* run(AwardRow, {
        text: `SELECT ${AWARD_COLUMNS} FROM ${AWARDS_FROM} WHERE a.opportunity_id = $1 ORDER BY a.signed_on DESC, a.id DESC LIMIT 100`,
        params: [opportunityId]
      })
    })

    /** What the data set covers, counted from it once per load (the stamp says when it changed). */
    const coverage = Effect.fn("Market.coverage")(function* (loaded: Dataset) {
      const known = yield* Ref.get(cached)
      if (Option.isSome(known) && known.value.stamp === loaded.stamp) return known.value
      const counted = yield* one(Coverage, coverageQuery)
      const value = yield* Option.match(counted, { onNone: () => Effect.die("the coverage query answered no row"), onSome: Effect.succeed })
      const fresh = { ...value, stamp: loaded.stamp }
      yield* Ref.set(cached, Option.some(fresh))
      return fresh
    })

    return { dataset, searcher, supplier, awardTotals, risksOf, permitsOf, opportunity, unit, awardsOf, coverage }
  })
}) {}
