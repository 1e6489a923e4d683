import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MarketSearchAwardsOutput } from "../../../../schema/catalog/Mercado.ts"
import { MarketSeededServices } from "./Seeded.ts"
import { callAs, principalOf } from "./Support.ts"

/** Awards matching by counting the awards themselves (what the rollup must agree with). */
const counted = (where: string, params: ReadonlyArray<unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<{ n: number }>(`SELECT count(*)::int AS n FROM market_awards ${where}`, params))
    .pipe(Effect.map((rows) => rows[0]?.n ?? -1))

layer(MarketSeededServices, { timeout: 120_000 })("market_search_awards totals on a generated data set", (it) => {
  it.effect("filters of the rollup's dimensions are counted from it, and agree with counting the awards", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const questions = [
        [{ state: "MX-CMX" }, "WHERE state = $1", ["MX-CMX"]],
        [{ state: "Jalisco", year: 2024 }, "WHERE state = $1 AND year = $2", ["MX-JAL", 2024]],
        [{ procedure_type: "licitacion_publica", contract_type: "obra_publica" }, "WHERE procedure_type = $1 AND contract_type = $2", [
          "licitacion_publica",
          "obra_publica"
        ]],
        [{}, "", []]
      ] as const
      for (const [input, where, params] of questions) {
        const { page } = yield* callAs(MarketSearchAwardsOutput, principal, "market_search_awards", { ...input, limit: 5 })
        const expected = yield* counted(where, params)
        assert.isAbove(expected, 0, JSON.stringify(input))
        assert.strictEqual(page.total, expected, JSON.stringify(input))
        assert.isFalse(page.total_is_lower_bound)
      }
    }))

  it.effect("a filter the rollup does not hold (an amount) counts the awards themselves, with the same answer", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const { page } = yield* callAs(MarketSearchAwardsOutput, principal, "market_search_awards", {
        state: "MX-CMX",
        amount_min: 1_000_000,
        limit: 5
      })
      assert.strictEqual(page.total, yield* counted("WHERE state = $1 AND amount >= $2", ["MX-CMX", 1_000_000]))
    }))
})
