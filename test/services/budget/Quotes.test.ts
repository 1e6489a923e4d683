import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { toJsonSchema } from "../../../schema/tools/JsonSchema.ts"
import { SUITE_NOW } from "../../support/SuiteClock.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import {
  alreadyOwn,
  balanceOf,
  BudgetServices,
  callReveal,
  confirm,
  failsWith,
  ledgerOf,
  ownedBy,
  quoteOf,
  testReveal,
  UNIT_PRICE
} from "./BudgetFixtures.ts"

const QUOTE_LIFETIME = Duration.minutes(10)

layer(BudgetServices)("quotes of a credits tool", (it) => {
  it.effect("without confirm the answer is a quote of every item, and nothing is charged or written", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const sql = yield* SqlClient.SqlClient
      const { principal } = yield* issuePrincipal("paid")
      yield* alreadyOwn(principal.workspaceId, ["per_owned"])

      const response = yield* callReveal(principal, { ids: ["per_ana", "per_ben", "nobody", "per_owned", "per_cy"] })
      assert.isUndefined(response.cost, "a quote spends nothing")
      assert.include(response.hint, "Nothing was charged")
      const quote = response.data
      assert.deepInclude(quote, {
        kind: "quote",
        tool: "test_reveal",
        unit: "contact",
        unit_price: UNIT_PRICE,
        total: 3 * UNIT_PRICE,
        balance_before: 160,
        balance_after: 160 - 3 * UNIT_PRICE,
        affordable: true,
        expires_at: new Date(SUITE_NOW + Duration.toMillis(QUOTE_LIFETIME)).toISOString()
      })
      const parsed = yield* quoteOf(principal, ["per_dora"])
      assert.match(parsed.quote_token, /^qtok_/)
      assert.deepStrictEqual(
        (yield* quoteOf(principal, ["per_ana", "per_ben", "nobody", "per_owned", "per_cy"])).items.map((
          i
        ) => [i.id, i.status, i.unit_cost]),
        [
          ["per_ana", "chargeable", UNIT_PRICE],
          ["per_ben", "chargeable", UNIT_PRICE],
          ["nobody", "not_found", 0],
          ["per_owned", "already_owned", 0],
          ["per_cy", "chargeable", UNIT_PRICE]
        ]
      )

      assert.deepStrictEqual((yield* ledgerOf(principal.workspaceId)).map((r) => [r.kind, r.delta, r.balanceAfter]), [[
        "opening",
        160,
        160
      ]])
      assert.strictEqual(yield* balanceOf(principal.workspaceId), 160)
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), ["per_owned"], "nothing delivered")
      const quotedOnly = yield* callReveal(principal, {
        ids: ["per_ana"],
        quote_token: parsed.quote_token,
        idempotency_key: "key-no-confirm"
      })
      assert.deepInclude(quotedOnly.data, { kind: "quote", total: UNIT_PRICE })
      assert.deepStrictEqual(quotedOnly.warnings, [
        "quote_token and idempotency_key are read only with confirm: true; this call only quoted"
      ])
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), ["per_owned"], "without confirm a token executes nothing")
      assert.strictEqual(yield* balanceOf(principal.workspaceId), 160)
      const [stored] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM quotes WHERE token_hash = ${parsed.quote_token}`
      assert.strictEqual(stored?.n, 0, "the token itself is not stored")
    }))

  it.effect("a quote is good for ten minutes by the clock; confirmed later it is refused expired and nothing is charged", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      const early = yield* quoteOf(principal, ["per_ana"])
      const late = yield* quoteOf(principal, ["per_ben"])

      yield* TestClock.adjust(Duration.subtract(QUOTE_LIFETIME, Duration.seconds(1)))
      assert.strictEqual((yield* confirm(principal, ["per_ana"], early.quote_token, "key-early-1")).cost?.kind, "credits")
      const ledger = yield* ledgerOf(principal.workspaceId)

      yield* TestClock.adjust(Duration.seconds(1))
      const expired = yield* failsWith(confirm(principal, ["per_ben"], late.quote_token, "key-late-1"), "QuoteRefused")
      assert.strictEqual(expired.reason, "expired")
      assert.include(expired.message, late.expires_at)
      assert.deepStrictEqual(yield* ledgerOf(principal.workspaceId), ledger, "nothing charged")
      assert.strictEqual(yield* balanceOf(principal.workspaceId), 160 - UNIT_PRICE)
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), ["per_ana"], "nothing delivered")

      // the refusal kept nothing: a new quote runs under the same key
      const fresh = yield* quoteOf(principal, ["per_ben"])
      const done = yield* confirm(principal, ["per_ben"], fresh.quote_token, "key-late-1")
      assert.deepInclude(done.cost, { credits: UNIT_PRICE, replayed: false })
    }))

  it.effect("a confirm is refused without a live quote of this workspace, tool and input, or with a used one", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      const other = yield* issuePrincipal("paid")
      const ids = ["per_ana", "per_ben"]
      const quote = yield* quoteOf(principal, ids)
      const reasonOf = (input: Record<string, unknown>, tool?: string) =>
        Effect.map(failsWith(callReveal(principal, input, tool), "QuoteRefused"), (e) => e.reason)

      const noQuote = yield* failsWith(callReveal(principal, { ids, confirm: true, idempotency_key: "key-missing" }), "InvalidInput")
      assert.deepStrictEqual(noQuote.issues.map((i) => [i.path, i.message]), [[
        "input.quote_token",
        "is required with confirm: true (call without confirm first: its quote has the quote_token)"
      ]])
      const published = toJsonSchema(testReveal.input)
      assert.deepStrictEqual([published["if"], published["then"]], [
        { properties: { confirm: { const: true } }, required: ["confirm"] },
        { required: ["quote_token", "idempotency_key"] }
      ], "the published input schema says it too")
      const noKey = yield* failsWith(callReveal(principal, { ids, confirm: true, quote_token: quote.quote_token }), "InvalidInput")
      assert.deepStrictEqual(noKey.issues.map((i) => i.path), ["input.idempotency_key"])

      const theirs = yield* quoteOf(other.principal, ids)
      assert.strictEqual(yield* reasonOf({ ids, confirm: true, quote_token: theirs.quote_token, idempotency_key: "key-theirs" }), "unknown")
      assert.strictEqual(yield* reasonOf({ ids, confirm: true, quote_token: "qtok_made_up", idempotency_key: "key-made-up" }), "unknown")
      assert.strictEqual(
        yield* reasonOf({ ids: ["per_ana"], confirm: true, quote_token: quote.quote_token, idempotency_key: "key-other-input" }),
        "mismatch"
      )
      assert.strictEqual(
        yield* reasonOf({ ids, confirm: true, quote_token: quote.quote_token, idempotency_key: "key-other-tool" }, "test_reveal_again"),
        "mismatch"
      )
      assert.deepStrictEqual((yield* ledgerOf(principal.workspaceId)).map((r) => r.kind), ["opening"])
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), [])

      yield* confirm(principal, ids, quote.quote_token, "key-first")
      assert.strictEqual(yield* reasonOf({ ids, confirm: true, quote_token: quote.quote_token, idempotency_key: "key-second" }), "used")
      assert.deepStrictEqual((yield* ledgerOf(principal.workspaceId)).map((r) => [r.kind, r.delta]), [["opening", 160], [
        "charge",
        -2 * UNIT_PRICE
      ]])
      assert.strictEqual(yield* balanceOf(other.principal.workspaceId), 160, "the other workspace's quote was not charged")
    }))
})
