import { HttpServer } from "@effect/platform"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import type { Redacted } from "effect"
import { ConfigProvider, Context, Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { ServicesLive } from "../../../layers/App.ts"
import { databaseFromUrl } from "../../../layers/Database.ts"
import type { Plan } from "../../../schema/tools/Definition.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { listen, serveOn } from "../../../src/http/Server.ts"
import { freshDatabase } from "../../support/TestDatabase.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { apiClient } from "../http/TestServer.ts"
import { databaseEnv, runBrein, tempDataDir } from "./Brein.ts"

class CliDatabaseUrl extends Context.Tag("test/cli/CreditsDatabaseUrl")<CliDatabaseUrl, Redacted.Redacted<string>>() {}

// The server here and the spawned CLI share one database and the audit checkpoint key, as processes of one deployment do.
const AUDIT_KEY = randomBytes(32).toString("base64")
const withAuditKey = Layer.setConfigProvider(
  ConfigProvider.fromMap(new Map([["BREIN_AUDIT_KEY", AUDIT_KEY]])).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
)

const ListenTest = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
  Layer.provideMerge(listen(0))
)

/** The app serving HTTP over a fresh database, and that database's URL for the CLI. */
const CreditsTest = Layer.unwrapScoped(
  Effect.map(freshDatabase, (url) =>
    serveOn(ListenTest).pipe(
      Layer.provideMerge(ServicesLive),
      Layer.provideMerge(databaseFromUrl(url)),
      Layer.merge(Layer.succeed(CliDatabaseUrl, url))
    ))
).pipe(Layer.provideMerge(NodeContext.layer), Layer.provide(withAuditKey))

const brein = (...args: Array<string>) =>
  Effect.gen(function* () {
    const url = yield* CliDatabaseUrl
    return yield* runBrein({ ...databaseEnv(url, yield* tempDataDir), BREIN_AUDIT_KEY: AUDIT_KEY }, ...args)
  }).pipe(Effect.scoped)

const workspace = (plan: Plan) =>
  Effect.gen(function* () {
    const name = uniqueName(plan)
    const issued = yield* (yield* Workspaces).issueKey({ workspace: name, plan: Option.some(plan) })
    return { name, client: yield* apiClient(Option.some(issued.key)) }
  })

// Nothing listens on this port: a command that connects fails with a connection error.
const CLOSED_DATABASE = "postgres://postgres@127.0.0.1:1/postgres"

layer(CreditsTest, { excludeTestServices: true, timeout: "90 seconds" })("brein credits", (it) => {
  it.effect("grant adds credits with its reason, as GET /api/v1/usage shows; balance prints the totals", () =>
    Effect.gen(function* () {
      const { client, name } = yield* workspace("paid")
      const granted = yield* brein("credits", "grant", "--workspace", name, "--reason", "pilot bonus", "40")
      assert.strictEqual(granted.exitCode, 0, granted.stderr)
      assert.strictEqual(granted.stdout.trim(), `granted 40 credits to "${name}": balance 200`)

      const usage = yield* client.account.usage({ urlParams: {} })
      assert.deepInclude(usage.credits, { balance: 200, granted_total: 200, spent_total: 0 })
      assert.deepStrictEqual(usage.credits.recent.map((e) => [e.kind, e.delta, e.balance_after, e.reason]), [
        ["grant", 40, 200, "pilot bonus"],
        ["opening", 160, 160, "opening balance of the paid plan"]
      ])

      const plain = yield* brein("credits", "grant", "--workspace", name, "5")
      assert.strictEqual(plain.exitCode, 0, plain.stderr)
      assert.strictEqual((yield* client.account.usage({ urlParams: { recent: 1 } })).credits.recent[0]?.reason, "granted by an operator")

      const balance = yield* brein("credits", "balance", "--workspace", name)
      assert.strictEqual(balance.exitCode, 0, balance.stderr)
      assert.strictEqual(balance.stdout.trim(), `"${name}": 205 credits (granted 205, spent 0)`)
    }), { timeout: 90_000 })

  it.effect("a free workspace opens at 0: grant gives it its first credits", () =>
    Effect.gen(function* () {
      const { client, name } = yield* workspace("free")
      const before = yield* brein("credits", "balance", "--workspace", name)
      assert.strictEqual(before.stdout.trim(), `"${name}": 0 credits (granted 0, spent 0)`)
      // one is said in the singular: "granted 1 credits", "1 credits"
      const one = yield* brein("credits", "grant", "--workspace", name, "--reason", "trial", "1")
      assert.strictEqual(one.exitCode, 0, one.stderr)
      assert.strictEqual(one.stdout.trim(), `granted 1 credit to "${name}": balance 1`)
      const single = yield* brein("credits", "balance", "--workspace", name)
      assert.strictEqual(single.stdout.trim(), `"${name}": 1 credit (granted 1, spent 0)`)
      const granted = yield* brein("credits", "grant", "--workspace", name, "--reason", "trial", "11")
      assert.strictEqual(granted.exitCode, 0, granted.stderr)
      assert.strictEqual((yield* client.account.usage({ urlParams: {} })).credits.balance, 12)
    }), { timeout: 90_000 })

  it.effect("an unknown workspace exits 1 and says so; N of 0 or less exits 2 and grants nothing", () =>
    Effect.gen(function* () {
      const unknown = yield* brein("credits", "grant", "--workspace", "no-such-workspace", "10")
      assert.strictEqual(unknown.exitCode, 1)
      assert.include(unknown.stderr, `no workspace named "no-such-workspace" (brein workspaces list shows them)`)
      const unknownBalance = yield* brein("credits", "balance", "--workspace", "no-such-workspace")
      assert.strictEqual(unknownBalance.exitCode, 1)
      assert.include(unknownBalance.stderr, `no workspace named "no-such-workspace" (brein workspaces list shows them)`)

      const { client, name } = yield* workspace("paid")
      const zero = yield* brein("credits", "grant", "--workspace", name, "0")
      assert.strictEqual(zero.exitCode, 2)
      assert.include(zero.stderr, "N must be between 1 and 1,000,000, not 0")
      const negative = yield* brein("credits", "grant", "--workspace", name, "--", "-3")
      assert.strictEqual(negative.exitCode, 2, negative.stderr)
      const tooMany = yield* brein("credits", "grant", "--workspace", name, "1000001")
      assert.strictEqual(tooMany.exitCode, 2)
      const usage = yield* client.account.usage({ urlParams: {} })
      assert.deepStrictEqual(usage.credits.recent.map((e) => e.kind), ["opening"])
      assert.strictEqual(usage.credits.balance, 160)
    }), { timeout: 90_000 })

  it.effect(
    "a grant that would take the balance over 1,000,000,000 is refused whole (exit 1), also past the column's range",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const { client, name } = yield* workspace("paid")
        yield* client.account.usage({ urlParams: {} })
        const balanceOf = Effect.map(client.account.usage({ urlParams: { recent: 50 } }), (usage) => usage.credits)

        yield* sql`UPDATE credit_accounts SET balance = 999999999 WHERE workspace_id = (SELECT id FROM workspaces WHERE name = ${name})`
        const over = yield* brein("credits", "grant", "--workspace", name, "2")
        assert.strictEqual(over.exitCode, 1, over.stderr)
        assert.strictEqual(over.stdout, "")
        assert.strictEqual(
          over.stderr.trim(),
          "brein: granting 2 credits would take the balance from 999,999,999 to 1,000,000,001, over the most a workspace holds (1,000,000,000); nothing was granted, at most 1 more can be"
        )
        const full = yield* brein("credits", "grant", "--workspace", name, "1")
        assert.strictEqual(full.exitCode, 0, full.stderr)
        assert.strictEqual((yield* balanceOf).balance, 1_000_000_000)

        // a balance over the ceiling (set before there was one) near the column's 2,147,483,647: refused, not "integer out of range"
        yield* sql`UPDATE credit_accounts SET balance = 2147483000 WHERE workspace_id = (SELECT id FROM workspaces WHERE name = ${name})`
        const past = yield* brein("credits", "grant", "--workspace", name, "1000000")
        assert.strictEqual(past.exitCode, 1, past.stderr)
        assert.strictEqual(
          past.stderr.trim(),
          "brein: granting 1,000,000 credits would take the balance from 2,147,483,000 to 2,148,483,000, over the most a workspace holds (1,000,000,000); nothing was granted, and no more can be"
        )
        const after = yield* balanceOf
        assert.strictEqual(after.balance, 2_147_483_000)
        assert.deepStrictEqual(after.recent.map((e) => [e.kind, e.delta]), [["grant", 1], ["opening", 160]])
      }),
    { timeout: 90_000 }
  )

  it.effect("a blank --reason exits 2 and grants nothing; a padded one is kept without its spaces", () =>
    Effect.gen(function* () {
      const { client, name } = yield* workspace("paid")
      for (const reason of ["", "   ", "\t\n"]) {
        const run = yield* brein("credits", "grant", "--workspace", name, "--reason", reason, "10")
        assert.strictEqual(run.exitCode, 2, run.stderr)
        assert.strictEqual(run.stdout, "")
        assert.strictEqual(run.stderr.trim(), "--reason must not be blank: the ledger says it as why the credits were added")
      }
      const before = yield* client.account.usage({ urlParams: {} })
      assert.deepStrictEqual(before.credits.recent.map((e) => e.kind), ["opening"])

      const padded = yield* brein("credits", "grant", "--workspace", name, "--reason", "  pilot bonus ", "10")
      assert.strictEqual(padded.exitCode, 0, padded.stderr)
      assert.strictEqual((yield* client.account.usage({ urlParams: { recent: 1 } })).credits.recent[0]?.reason, "pilot bonus")
    }), { timeout: 90_000 })

  it.effect("an N out of range is a command-line error: exit 2 before any database connection", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDataDir
      for (const n of ["0", "1000001"]) {
        const run = yield* runBrein({ DATABASE_URL: CLOSED_DATABASE, BREIN_DATA_DIR: dataDir }, "credits", "grant", "--workspace", "w", n)
        assert.strictEqual(run.exitCode, 2, run.stderr)
        assert.strictEqual(run.stdout, "")
        assert.include(run.stderr, `N must be between 1 and 1,000,000, not ${n}`)
        assert.notMatch(run.stderr, /connect|ECONNREFUSED/i)
      }
    }).pipe(Effect.scoped), { timeout: 90_000 })
})
