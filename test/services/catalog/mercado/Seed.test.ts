import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { MarketSeed } from "../../../../services/catalog/mercado/MarketSeed.ts"
import { MARKET_TEST_AWARDS, MARKET_TEST_SEED, MarketSeededDatabase, seedMarket } from "./Seeded.ts"

const Group = Schema.Struct({
  state: Schema.String,
  year: Schema.Int,
  contractType: Schema.String,
  procedureType: Schema.String,
  supplierSize: Schema.String,
  awards: Schema.String,
  amount: Schema.String,
  suppliers: Schema.String
})
const groups = (from: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.unsafe(
      `SELECT state, year, contract_type, procedure_type, supplier_size, awards::text, amount::text, suppliers::text FROM (${from}) g
       ORDER BY state, year, contract_type, procedure_type, supplier_size`
    )).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(Group))))

const count = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).pipe(
    Effect.map((rows) => rows[0]?.n ?? -1)
  )

layer(MarketSeededDatabase, { timeout: 120_000 })("Mercado loader", (it) => {
  it.effect("the counts it returns are the tables' counts, with exactly the awards asked for", () =>
    Effect.gen(function* () {
      const seeded = yield* seedMarket()
      assert.strictEqual(seeded.awards, MARKET_TEST_AWARDS)
      assert.strictEqual(seeded.seed, MARKET_TEST_SEED)
      const tables = {
        suppliers: "market_suppliers",
        units: "market_units",
        opportunities: "market_opportunities",
        awards: "market_awards",
        permits: "market_permits",
        risks: "market_risks",
        rollupRows: "market_award_rollup"
      } as const
      for (const [key, table] of Object.entries(tables)) {
        assert.strictEqual(yield* count(table), seeded[key as keyof typeof tables], table)
      }
      assert.isAbove(seeded.suppliers, 300)
      assert.isAbove(seeded.opportunities, 2_000)
      assert.isAbove(seeded.permits, 0)
      assert.isAbove(seeded.risks, 0)
      // the foreign keys dropped for the load are back, and hold
      const sql = yield* SqlClient.SqlClient
      const keys = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text LIKE 'market_%'`
      assert.strictEqual(keys[0]?.n, 6)
      const orphan = yield* Effect.flip(
        sql`UPDATE market_awards SET supplier_id = 'sup_nobody' WHERE id = (SELECT min(id) FROM market_awards)`
      )
      assert.include(String(orphan.cause), "foreign key")
    }))

  it.effect("every rollup group holds the sums of the same GROUP BY over the awards", () =>
    Effect.gen(function* () {
      const rollup = yield* groups("SELECT * FROM market_award_rollup")
      const direct = yield* groups(
        `SELECT state, year, contract_type, procedure_type, supplier_size, count(*) AS awards, sum(amount) AS amount,
                count(DISTINCT supplier_id) AS suppliers
         FROM market_awards GROUP BY 1, 2, 3, 4, 5`
      )
      assert.isAbove(rollup.length, 50)
      assert.deepStrictEqual(rollup, direct)
    }))

  it.effect("a second load replaces the data set: no duplicates, another seed other rows, the dataset row rewritten", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const before = yield* sql<{ id: string }>`SELECT id FROM market_awards ORDER BY id LIMIT 5`
      const again = yield* seedMarket({ seed: "another", awards: 1_200 })
      assert.strictEqual(yield* count("market_awards"), 1_200)
      assert.strictEqual(yield* count("market_suppliers"), again.suppliers)
      const [overlap] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM market_awards WHERE id IN ${
        sql.in(before.map((r) => r.id))
      }`
      assert.strictEqual(overlap?.n, 0)
      const dataset = yield* sql<{ seed: string; awards: number; suppliers: number; firstYear: number; lastYear: number; loadedAt: Date }>`
        SELECT seed, awards, suppliers, first_year, last_year, loaded_at FROM market_dataset`
      assert.strictEqual(dataset.length, 1)
      assert.deepStrictEqual(
        [dataset[0]?.seed, dataset[0]?.awards, dataset[0]?.suppliers, dataset[0]?.firstYear, dataset[0]?.lastYear],
        ["another", 1_200, again.suppliers, 2019, 2026]
      )
      // the test clock stands at the epoch: loaded_at comes from the Effect clock, not the machine's
      assert.strictEqual(dataset[0]?.loadedAt.getTime(), 0)
      const back = yield* seedMarket()
      assert.strictEqual(back.awards, MARKET_TEST_AWARDS)
      assert.strictEqual(yield* count("market_dataset"), 1)
    }))

  it.effect("loadIfEmpty leaves a loaded data set alone; bad sizes are refused before anything is touched", () =>
    Effect.gen(function* () {
      const loader = yield* MarketSeed
      assert.isUndefined(yield* loader.loadIfEmpty({ seed: "unused", awards: 10 }))
      const refused = yield* Effect.flip(loader.load({ seed: "x", awards: 0 }))
      assert.include(refused.message, "awards must be from 1 to 5000000")
      assert.strictEqual(yield* count("market_awards"), MARKET_TEST_AWARDS)
      const sql = yield* SqlClient.SqlClient
      yield* sql`TRUNCATE market_awards, market_opportunities, market_risks, market_permits, market_suppliers, market_units, market_award_rollup, market_dataset`
      const loaded = yield* loader.loadIfEmpty({ seed: MARKET_TEST_SEED, awards: 500 })
      assert.strictEqual(loaded?.awards, 500)
      yield* seedMarket()
    }))
})
