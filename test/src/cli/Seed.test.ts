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
    "loads the directory of a seed, prints the counts and the time, and a second run replaces it alike",
    () =>
      Effect.gen(function* () {
        const url = yield* freshDatabase
        const env = databaseEnv(url, yield* tempDataDir)
        const first = yield* runBrein(env, "seed", "--companies", "150", "--seed", "cli")
        assert.strictEqual(first.exitCode, 0, first.stderr)
        assert.match(first.stdout, /^loaded 150 companies and \d+ people \(seed "cli"\) in \d+\.\d s\n$/)
        const second = yield* runBrein(env, "seed", "--companies", "150", "--seed", "cli")
        assert.strictEqual(second.stdout.replace(/ in .*/, ""), first.stdout.replace(/ in .*/, ""))
        const sql = yield* PgClient.make({ url, maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM companies`
        assert.strictEqual(row?.n, 150)
        const refused = yield* runBrein(env, "seed", "--companies", "0")
        assert.strictEqual(refused.exitCode, 2)
      }).pipe(Effect.provide(NodeContext.layer)),
    120_000
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
