import { SqlClient } from "@effect/sql"
import { Clock, DateTime, Effect, Fiber, Schema } from "effect"
import { minLength } from "../../../schema/Length.ts"
import { batchStatement, MARKET_TABLES } from "./Columns.ts"
import { DEFAULT_AWARDS, DEFAULT_MARKET_SEED, marketBatches, MAX_AWARDS } from "./Generator.ts"

export { DEFAULT_AWARDS, DEFAULT_MARKET_SEED, MAX_AWARDS } from "./Generator.ts"

export const MarketSeedOptions = Schema.Struct({
  seed: Schema.String.pipe(minLength(1)),
  awards: Schema.Int.pipe(Schema.between(1, MAX_AWARDS, { message: () => `awards must be from 1 to ${MAX_AWARDS}` }))
})
export type MarketSeedOptions = typeof MarketSeedOptions.Type

export const MarketCounts = Schema.Struct({
  suppliers: Schema.Int,
  units: Schema.Int,
  opportunities: Schema.Int,
  awards: Schema.Int,
  permits: Schema.Int,
  risks: Schema.Int,
  rollupRows: Schema.Int
})
export type MarketCounts = typeof MarketCounts.Type

export interface MarketSeeded extends MarketCounts {
  readonly seed: string
  readonly millis: number
}

const IndexRow = Schema.Struct({ indexname: Schema.String, indexdef: Schema.String })
const ForeignKey = Schema.Struct({ tableName: Schema.String, name: Schema.String, definition: Schema.String })

const COUNTS = `SELECT
  (SELECT count(*)::int FROM market_suppliers) AS suppliers,
  (SELECT count(*)::int FROM market_units) AS units,
  (SELECT count(*)::int FROM market_opportunities) AS opportunities,
  (SELECT count(*)::int FROM market_awards) AS awards,
  (SELECT count(*)::int FROM market_permits) AS permits,
  (SELECT count(*)::int FROM market_risks) AS risks,
  (SELECT count(*)::int FROM market_award_rollup) AS rollup_rows`

const ROLLUP = `INSERT INTO market_award_rollup (state, year, contract_type, procedure_type, supplier_size, awards, amount, suppliers)
  SELECT state, year, contract_type, procedure_type, supplier_size, count(*), sum(amount), count(DISTINCT supplier_id)
  FROM market_awards GROUP BY state, year, contract_type, procedure_type, supplier_size`

const DATASET = `INSERT INTO market_dataset (seed, suppliers, awards, first_year, last_year, loaded_at)
  SELECT $1, (SELECT count(*) FROM market_suppliers), count(*), min(year), max(year), $2::timestamptz FROM market_awards`

// Two processes starting on an empty database load it once: the second waits, then finds it full.
const SEED_LOCK = 7_251_114

/** Loads the generated Mercado data set: all or nothing, replacing whatever data set was there. */
export class MarketSeed extends Effect.Service<MarketSeed>()("brein/catalog/mercado/MarketSeed", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const exec = (text: string, params: ReadonlyArray<unknown> = []) => Effect.orDie(sql.unsafe(text, params))

    const counts = Effect.fn("MarketSeed.counts")(function* () {
      const rows = yield* exec(COUNTS)
      return yield* Effect.orDie(Schema.decodeUnknown(MarketCounts)(rows[0]))
    })

    const fill = Effect.fn("MarketSeed.fill")(function* (options: MarketSeedOptions) {
      const started = yield* Clock.currentTimeMillis
      yield* exec(`TRUNCATE ${MARKET_TABLES.join(", ")}`)
      // A trigram GIN index over 200,000 titles builds in half the time with room to sort in memory.
      yield* exec("SET LOCAL maintenance_work_mem = '256MB'")
      // Foreign keys are checked once per table when added back, not once per row (the awards' three cost most).
      const foreignKeys = yield* exec(
        `SELECT conrelid::regclass::text AS table_name, conname AS name, pg_get_constraintdef(oid) AS definition
         FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text = ANY($1::text[])`,
        [MARKET_TABLES]
      ).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(ForeignKey))), Effect.orDie)
      for (const key of foreignKeys) yield* exec(`ALTER TABLE ${key.tableName} DROP CONSTRAINT ${key.name}`)
      // Secondary indexes (trigram GIN ones especially) are built once over the loaded rows, not row by row.
      const indexes = yield* exec(
        `SELECT i.indexname, i.indexdef FROM pg_indexes i
         WHERE i.schemaname = current_schema() AND i.tablename = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
        [MARKET_TABLES]
      ).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(IndexRow))), Effect.orDie)
      for (const index of indexes) yield* exec(`DROP INDEX ${index.indexname}`)
      const phase = (name: string, since: number) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.as(Effect.logDebug(`Mercado load: ${name} in ${now - since} ms`), now))
      let mark = yield* phase("emptied", started)
      // Batch n is inserted while batch n + 1 is generated: the forked statement shares the transaction.
      let inserting: Fiber.RuntimeFiber<unknown> | undefined
      for (const batch of marketBatches(options.seed, options.awards)) {
        const statement = batchStatement(batch)
        if (inserting !== undefined) yield* Fiber.join(inserting)
        inserting = statement === undefined ? undefined : yield* Effect.fork(exec(...statement))
        yield* Effect.yieldNow()
      }
      if (inserting !== undefined) yield* Fiber.join(inserting)
      mark = yield* phase("rows generated and inserted", mark)
      for (const index of indexes) yield* exec(index.indexdef)
      mark = yield* phase("indexes built", mark)
      for (const key of foreignKeys) yield* exec(`ALTER TABLE ${key.tableName} ADD CONSTRAINT ${key.name} ${key.definition}`)
      mark = yield* phase("foreign keys checked", mark)
      yield* exec(ROLLUP)
      const now = DateTime.formatIso(DateTime.unsafeMake(yield* Clock.currentTimeMillis))
      yield* exec(DATASET, [options.seed, now])
      mark = yield* phase("rollup built", mark)
      for (const table of MARKET_TABLES) yield* exec(`ANALYZE ${table}`)
      yield* phase("analyzed", mark)
      const loaded = yield* counts()
      return { seed: options.seed, ...loaded, millis: (yield* Clock.currentTimeMillis) - started } satisfies MarketSeeded
    })

    const locked = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      sql.withTransaction(Effect.zipRight(exec(`SELECT pg_advisory_xact_lock(${SEED_LOCK})`), effect)).pipe(Effect.orDie)

    /** Replaces the data set with the one of `seed` holding `awards` contracts, in one transaction. */
    const load = Effect.fn("MarketSeed.load")(function* (options: MarketSeedOptions) {
      const valid = yield* Schema.decodeUnknown(MarketSeedOptions)(options)
      return yield* locked(fill(valid))
    })

    /** Loads the default data set when there is none yet; undefined when one was there. */
    const loadIfEmpty = Effect.fn("MarketSeed.loadIfEmpty")(
      function* (options: MarketSeedOptions = { seed: DEFAULT_MARKET_SEED, awards: DEFAULT_AWARDS }) {
        const valid = yield* Schema.decodeUnknown(MarketSeedOptions)(options)
        return yield* locked(Effect.gen(function* () {
          const present = yield* sql<{ present: boolean }>`SELECT EXISTS (SELECT 1 FROM market_dataset) AS present`.pipe(Effect.orDie)
          if (present[0]?.present === true) return undefined
          return yield* fill(valid)
        }))
      }
    )

    return { load, loadIfEmpty, counts }
  })
}) {}
