import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { ConfigProvider, Effect, TestClock } from "effect"
import { GrantReason } from "../../../schema/budget/Budget.ts"
import { Credits, MAX_BALANCE } from "../../../services/budget/Credits.ts"
import { SUITE_NOW } from "../../support/SuiteClock.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import { balanceOf, BudgetServices, confirm, failsWith, ledgerOf, quoteOf, UNIT_PRICE } from "./BudgetFixtures.ts"

layer(BudgetServices)("the credits ledger", (it) => {
  it.effect("a new paid workspace opens with 160 credits and a free one with none, each with an opening row", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const credits = yield* Credits
      const paid = yield* issuePrincipal("paid")
      const free = yield* issuePrincipal("free")
      assert.strictEqual(yield* balanceOf(paid.principal.workspaceId), null, "an account opens when first used")
      assert.strictEqual(yield* credits.balance(paid.principal), 160)
      assert.strictEqual(yield* credits.balance(free.principal), 0)
      assert.strictEqual(yield* credits.balance(paid.principal), 160, "opened once")
      assert.deepStrictEqual((yield* ledgerOf(paid.principal.workspaceId)).map((r) => [r.kind, r.delta, r.balanceAfter, r.reason]), [
        ["opening", 160, 160, "opening balance of the paid plan"]
      ])
      assert.deepStrictEqual((yield* ledgerOf(free.principal.workspaceId)).map((r) => [r.kind, r.delta, r.balanceAfter]), [
        ["opening", 0, 0]
      ])
    }))

  it.effect("the opening balance of a plan is configuration", () =>
    Effect.gen(function* () {
      const configured = yield* Effect.provide(Credits, Credits.Default).pipe(
        Effect.withConfigProvider(ConfigProvider.fromJson({ BREIN_OPENING_CREDITS_PAID: 25, BREIN_OPENING_CREDITS_FREE: 3 }))
      )
      const paid = yield* issuePrincipal("paid")
      const free = yield* issuePrincipal("free")
      assert.strictEqual(yield* configured.balance(paid.principal), 25)
      assert.strictEqual(yield* configured.balance(free.principal), 3)
    }))

  it.effect("a grant adds credits with a ledger row that says why, and usage adds up the ledger", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const credits = yield* Credits
      const { principal } = yield* issuePrincipal("free")
      assert.strictEqual(yield* credits.grant(principal.workspaceId, principal.plan, 25, GrantReason.make("pilot: first month")), 25)
      assert.strictEqual(yield* credits.grant(principal.workspaceId, principal.plan, 5, GrantReason.make("support: apology")), 30)
      const quote = yield* quoteOf(principal, ["per_ana"])
      yield* confirm(principal, ["per_ana"], quote.quote_token, "ledger-0001")

      assert.deepStrictEqual((yield* ledgerOf(principal.workspaceId)).map((r) => [r.kind, r.delta, r.balanceAfter, r.reason]), [
        ["opening", 0, 0, "opening balance of the free plan"],
        ["grant", 25, 25, "pilot: first month"],
        ["grant", 5, 30, "support: apology"],
        ["charge", -UNIT_PRICE, 30 - UNIT_PRICE, `test_reveal: delivered 1 × contact, ${UNIT_PRICE} credits each`]
      ])
      const usage = yield* credits.usage(principal, 2)
      assert.deepInclude(usage, {
        balance: 30 - UNIT_PRICE,
        granted_total: 30,
        spent_total: UNIT_PRICE,
        charges: 1,
        average_charge: UNIT_PRICE
      })
      assert.deepStrictEqual(usage.recent.map((r) => [r.kind, r.delta, r.balance_after, r.tool_id, r.at]), [
        ["charge", -UNIT_PRICE, 30 - UNIT_PRICE, "test_reveal", new Date(SUITE_NOW).toISOString()],
        ["grant", 5, 30, null, new Date(SUITE_NOW).toISOString()]
      ])
    }))

  it.effect("usage's recent rows are the newest by number, where the ids gain a digit (10 after 9)", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const sql = yield* SqlClient.SqlClient
      const credits = yield* Credits
      const { principal } = yield* issuePrincipal("free")
      yield* credits.balance(principal)
      // the ledger's next ids cross a power of ten (the sequence only moves forward: other tests' rows keep their order)
      const [next] = yield* sql<{ readonly next: string }>`SELECT nextval(pg_get_serial_sequence('credit_ledger', 'id'))::text AS next`
      const crossing = 10n ** BigInt((next?.next ?? "1").length) - 2n
      yield* sql`SELECT setval(pg_get_serial_sequence('credit_ledger', 'id'), ${crossing.toString()}::bigint)`
      for (const amount of [1, 2, 3, 4]) {
        yield* credits.grant(principal.workspaceId, principal.plan, amount, GrantReason.make(`grant ${amount}`))
      }
      const usage = yield* credits.usage(principal, 3)
      assert.deepStrictEqual(usage.recent.map((r) => [r.delta, r.balance_after]), [[4, 10], [3, 6], [2, 3]])
    }))

  it.effect("a balance holds at most MAX_BALANCE: a grant past it is refused whole, with no ledger row, however large the balance", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const credits = yield* Credits
      const { principal } = yield* issuePrincipal("free")
      const setBalance = (balance: number) =>
        sql`UPDATE credit_accounts SET balance = ${balance} WHERE workspace_id = ${principal.workspaceId}`
      const grant = (amount: number) => credits.grant(principal.workspaceId, principal.plan, amount, GrantReason.make("more"))
      yield* credits.balance(principal)

      yield* setBalance(MAX_BALANCE - 10)
      assert.strictEqual(yield* grant(10), MAX_BALANCE)
      const full = yield* failsWith(grant(1), "BalanceCeilingExceeded")
      assert.deepInclude(full, { balance: MAX_BALANCE, amount: 1 })
      assert.include(full.message, "nothing was granted, and no more can be")
      // the column's own limit (2,147,483,647) is passed neither by the sum nor by an amount alone
      yield* setBalance(2_147_483_000)
      assert.deepInclude(yield* failsWith(grant(1_000_000), "BalanceCeilingExceeded"), { balance: 2_147_483_000 })
      yield* setBalance(0)
      assert.deepInclude(yield* failsWith(grant(3_000_000_000), "BalanceCeilingExceeded"), { balance: 0 })
      assert.strictEqual(yield* balanceOf(principal.workspaceId), 0)
      assert.deepStrictEqual((yield* ledgerOf(principal.workspaceId)).map((r) => [r.kind, r.delta]), [["opening", 0], ["grant", 10]])
    }))

  it.effect("an opening balance over MAX_BALANCE is a configuration error, named", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(
        Effect.provide(Credits, Credits.Default).pipe(
          Effect.withConfigProvider(ConfigProvider.fromJson({ BREIN_OPENING_CREDITS_PAID: MAX_BALANCE + 1 }))
        )
      )
      assert.include(
        String(refused),
        `BREIN_OPENING_CREDITS_PAID must be a whole number from 0 to 1,000,000,000 (the most a balance holds), not "1000000001"`
      )
    }))

  it.effect("the database refuses to update, delete or truncate ledger rows", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const credits = yield* Credits
      const { principal } = yield* issuePrincipal("paid")
      yield* credits.grant(principal.workspaceId, principal.plan, 10, GrantReason.make("before the attempts"))
      const before = yield* ledgerOf(principal.workspaceId)
      assert.strictEqual(before.length, 2)
      for (
        const statement of [
          `UPDATE credit_ledger SET delta = delta + 1000 WHERE workspace_id = '${principal.workspaceId}'`,
          `DELETE FROM credit_ledger WHERE workspace_id = '${principal.workspaceId}'`,
          "TRUNCATE credit_ledger"
        ]
      ) {
        const refused = yield* Effect.flip(sql.unsafe(statement))
        assert.include(String(refused.cause), "credit_ledger is append-only", statement)
      }
      assert.deepStrictEqual(yield* ledgerOf(principal.workspaceId), before)
    }))
})
