import { assert, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
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
  UNIT_PRICE
} from "./BudgetFixtures.ts"

const ASKED = ["per_ana", "nobody", "per_ben", "per_owned", "per_cy"]

layer(BudgetServices)("charging a credits call", (it) => {
  it.effect("a confirmed quote is charged only for what the handler delivered, in one ledger row", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      yield* alreadyOwn(principal.workspaceId, ["per_owned"])
      const quote = yield* quoteOf(principal, ASKED)
      assert.strictEqual(quote.total, 3 * UNIT_PRICE)

      const response = yield* confirm(principal, ASKED, quote.quote_token, "reveal-0001")
      assert.deepStrictEqual(response.data, {
        revealed: [
          { id: "per_ana", email: "ana@example.cl" },
          { id: "per_ben", email: "ben@example.cl" },
          { id: "per_cy", email: "cy@example.cl" }
        ],
        not_found: ["nobody"],
        already_owned: ["per_owned"]
      })
      assert.deepStrictEqual(response.cost, {
        kind: "credits",
        credits: 3 * UNIT_PRICE,
        unit: "contact",
        unit_price: UNIT_PRICE,
        delivered: 3,
        balance_after: 160 - 3 * UNIT_PRICE,
        quote_id: quote.quote_id,
        replayed: false
      })
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), ["per_ana", "per_ben", "per_cy", "per_owned"])
      const ledger = yield* ledgerOf(principal.workspaceId)
      assert.deepStrictEqual(ledger.slice(1), [{
        kind: "charge",
        delta: -3 * UNIT_PRICE,
        balanceAfter: 160 - 3 * UNIT_PRICE,
        reason: `test_reveal: delivered 3 × contact, ${UNIT_PRICE} credits each`,
        toolId: "test_reveal",
        quoteId: quote.quote_id
      }])
      assert.strictEqual(yield* balanceOf(principal.workspaceId), 160 - 3 * UNIT_PRICE)
    }))

  it.effect("an item delivered by another call after the quote is not charged again", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      const both = yield* quoteOf(principal, ["per_ana", "per_ben"])
      const one = yield* quoteOf(principal, ["per_ben"])
      yield* confirm(principal, ["per_ben"], one.quote_token, "reveal-ben")
      const response = yield* confirm(principal, ["per_ana", "per_ben"], both.quote_token, "reveal-both")
      assert.deepInclude(response.cost, { credits: UNIT_PRICE, delivered: 1 })
      assert.deepStrictEqual((yield* ledgerOf(principal.workspaceId)).map((r) => r.delta), [160, -UNIT_PRICE, -UNIT_PRICE])
    }))

  it.effect("the same idempotency key with the same input answers the first result again at no cost; with another input it conflicts", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      yield* alreadyOwn(principal.workspaceId, ["per_owned"])
      const quote = yield* quoteOf(principal, ASKED)
      const first = yield* confirm(principal, ASKED, quote.quote_token, "reveal-0002")
      const ledger = yield* ledgerOf(principal.workspaceId)

      const again = yield* confirm(principal, ASKED, quote.quote_token, "reveal-0002")
      assert.deepStrictEqual(again.data, first.data, "the first answer, as it was")
      assert.deepStrictEqual(again.cost, {
        kind: "credits",
        credits: 0,
        unit: "contact",
        unit_price: UNIT_PRICE,
        delivered: 3,
        balance_after: 160 - 3 * UNIT_PRICE,
        quote_id: quote.quote_id,
        replayed: true
      })
      assert.deepStrictEqual(yield* ledgerOf(principal.workspaceId), ledger, "no new ledger row")
      assert.strictEqual(yield* balanceOf(principal.workspaceId), 160 - 3 * UNIT_PRICE)

      // the key answers after its quote expired, too
      yield* TestClock.adjust(Duration.minutes(30))
      assert.deepInclude((yield* confirm(principal, ASKED, quote.quote_token, "reveal-0002")).cost, { credits: 0, replayed: true })

      const other = yield* quoteOf(principal, ["per_dora"])
      const conflict = yield* failsWith(confirm(principal, ["per_dora"], other.quote_token, "reveal-0002"), "IdempotencyConflict")
      assert.include(conflict.message, "reveal-0002")
      assert.deepStrictEqual(yield* ledgerOf(principal.workspaceId), ledger)
      assert.notInclude(yield* ownedBy(principal.workspaceId), "per_dora")
      // the conflict used nothing: that quote still executes under a key of its own
      assert.deepInclude((yield* confirm(principal, ["per_dora"], other.quote_token, "reveal-0003")).cost, { credits: UNIT_PRICE })
    }))

  it.effect("a quote the balance cannot pay is quoted as such, and confirmed it is refused with nothing charged or delivered", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("free")
      const response = yield* callReveal(principal, { ids: ["per_ana"] })
      assert.deepInclude(response.data, { total: UNIT_PRICE, balance_before: 0, affordable: false })
      assert.include(response.hint, "has 0 credits")
      const quote = yield* quoteOf(principal, ["per_ana"])
      const refused = yield* failsWith(confirm(principal, ["per_ana"], quote.quote_token, "reveal-0004"), "InsufficientCredits")
      assert.deepInclude(refused, { balance: 0, required: UNIT_PRICE })
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), [])
      assert.deepStrictEqual((yield* ledgerOf(principal.workspaceId)).map((r) => [r.kind, r.delta]), [["opening", 0]])
    }))
})
