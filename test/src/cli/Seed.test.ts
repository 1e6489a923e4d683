import { Reactivity } from "@effect/experimental"
import { NodeContext } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { seedOnStart } from "../../../layers/Directory.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { databaseEnv, runBrein, tempDataDir } from "./Brein.ts"

const withConfig = (entries: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(entries))))

describe("brein seed", () => {
  it.scoped(
    "loads the directory and Mercado of a seed, prints the counts and the time, a second run replaces them alike; --only loads one",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const env = databaseEnv(url, yield* tempDataDir)
        const first = yield* runBrein(env, "seed", "--companies", "150", "--awards", "400", "--seed", "cli")
        assert.strictEqual(first.exitCode, 0, first.stderr)
        assert.match(
          first.stdout,
          /^loaded 150 companies and \d+ people \(seed "cli"\) in \d+\.\d s\nloaded Mercado: 400 awards, \d+ procedures, 50 suppliers, 30 buying units, \d+ permits, \d+ risk records \(seed "cli"\) in \d+\.\d s\n$/
        )
        const second = yield* runBrein(env, "seed", "--companies", "150", "--awards", "400", "--seed", "cli")
        assert.strictEqual(second.stdout.replace(/ in .*/g, ""), first.stdout.replace(/ in .*/g, ""))
        const sql = yield* PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM companies`
        assert.strictEqual(row?.n, 150)
        const mercado = yield* runBrein(env, "seed", "--only", "mercado", "--awards", "250", "--seed", "other")
        assert.strictEqual(mercado.exitCode, 0, mercado.stderr)
        assert.match(mercado.stdout, /^loaded Mercado: 250 awards, .* \(seed "other"\) in \d+\.\d s\n$/)
        const [after] = yield* sql<{ companies: number; awards: number; seed: string }>`
          SELECT (SELECT count(*)::int FROM companies) AS companies, (SELECT count(*)::int FROM market_awards) AS awards,
                 (SELECT seed FROM market_dataset) AS seed`
        assert.deepStrictEqual(after, { companies: 150, awards: 250, seed: "other" })
        const refused = yield* runBrein(env, "seed", "--companies", "0")
        assert.strictEqual(refused.exitCode, 2)
        const tooMany = yield* runBrein(env, "seed", "--awards", "5000001")
        assert.strictEqual(tooMany.exitCode, 2)
        assert.include(tooMany.stderr + tooMany.stdout, "--awards must be from 1 to 5000000")
        const unknown = yield* runBrein(env, "seed", "--only", "everything")
        assert.strictEqual(unknown.exitCode, 2)
        for (const blank of ["", "  "]) {
          const refusedSeed = yield* runBrein(env, "seed", "--companies", "120", "--seed", blank)
          assert.strictEqual(refusedSeed.exitCode, 2, refusedSeed.stderr)
          assert.include(refusedSeed.stderr + refusedSeed.stdout, "--seed must not be blank")
        }
        const [kept] = yield* sql<{ companies: number; awards: number; seed: string }>`
          SELECT (SELECT count(*)::int FROM companies) AS companies, (SELECT count(*)::int FROM market_awards) AS awards,
                 (SELECT seed FROM market_dataset) AS seed`
        assert.deepStrictEqual(kept, { companies: 150, awards: 250, seed: "other" }, "a refused command line replaced nothing")
      }).pipe(Effect.provide(NodeContext.layer)),
    180_000
  )

  it.effect("a start seeds an empty directory on the embedded database only, unless BREIN_SEED_DIRECTORY says otherwise", () =>
    Effect.gen(function* () {
      assert.isTrue(yield* seedOnStart.pipe(withConfig({})))
      assert.isTrue(yield* seedOnStart.pipe(withConfig({ DATABASE_URL: "" })))
      assert.isFalse(yield* seedOnStart.pipe(withConfig({ DATABASE_URL: "postgres://h/db" })))
      assert.isTrue(yield* seedOnStart.pipe(withConfig({ DATABASE_URL: "postgres://h/db", BREIN_SEED_DIRECTORY: "true" })))
      assert.isFalse(yield* seedOnStart.pipe(withConfig({ BREIN_SEED_DIRECTORY: "false" })))
    }))
})
