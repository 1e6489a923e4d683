import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { GrantReason } from "../../../schema/budget/Budget.ts"
import type { WorkspaceId } from "../../../schema/Ids.ts"
import { Credits } from "../../../services/budget/Credits.ts"
import { SUITE_NOW } from "../../support/SuiteClock.ts"
import { issuePrincipal } from "../../support/TestLayers.ts"
import { balanceOf, BudgetServices, confirm, ledgerOf, ownedBy, quoteOf, UNIT_PRICE } from "./BudgetFixtures.ts"

const CALLERS = 100
const IDS = ["per_ana", "per_ben", "nobody"]

const tagsOf = <A, E extends { readonly _tag: string }>(outcomes: ReadonlyArray<Either.Either<A, E>>) =>
  outcomes.flatMap((o) => (Either.isLeft(o) ? [o.left._tag] : []))

const ledgerSum = (workspaceId: WorkspaceId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ sum: number }>`SELECT coalesce(sum(delta), 0)::int AS sum FROM credit_ledger WHERE workspace_id = ${workspaceId}`
  ).pipe(Effect.map((rows) => rows[0]?.sum))

layer(BudgetServices)("credits calls at the same time", (it) => {
  it.effect(`${CALLERS} confirms of one quote under one key: one charge, every other answer a free replay of it`, () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      const quote = yield* quoteOf(principal, IDS)
      const outcomes = yield* Effect.all(
        Array.from({ length: CALLERS }, () => Effect.either(confirm(principal, IDS, quote.quote_token, "one-shared-key"))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(tagsOf(outcomes), [])
      const costs = outcomes.flatMap((o) => (Either.isRight(o) && o.right.cost?.kind === "credits" ? [o.right.cost] : []))
      assert.strictEqual(costs.length, CALLERS)
      assert.deepStrictEqual(costs.filter((c) => !c.replayed).map((c) => c.credits), [2 * UNIT_PRICE])
      assert.isTrue(costs.filter((c) => c.replayed).every((c) => c.credits === 0))
      const answers = new Set(outcomes.flatMap((o) => (Either.isRight(o) ? [JSON.stringify(o.right.data)] : [])))
      assert.strictEqual(answers.size, 1, "every caller got the one answer")

      const charges = (yield* ledgerOf(principal.workspaceId)).filter((r) => r.kind === "charge")
      assert.deepStrictEqual(charges.map((r) => r.delta), [-2 * UNIT_PRICE])
      assert.strictEqual(yield* balanceOf(principal.workspaceId), 160 - 2 * UNIT_PRICE)
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), ["per_ana", "per_ben"])
    }))

  it.effect(`${CALLERS} confirms of one quote under ${CALLERS} keys: one charge, every other refused as used`, () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      const quote = yield* quoteOf(principal, IDS)
      const outcomes = yield* Effect.all(
        Array.from({ length: CALLERS }, (_, i) => Effect.either(confirm(principal, IDS, quote.quote_token, `own-key-${i}`))),
        { concurrency: "unbounded" }
      )
      const refusals = outcomes.flatMap((o) => (Either.isLeft(o) && o.left._tag === "QuoteRefused" ? [o.left.reason] : []))
      assert.strictEqual(refusals.length, CALLERS - 1)
      assert.deepStrictEqual(new Set(refusals), new Set(["used"]))
      assert.strictEqual(tagsOf(outcomes).length, CALLERS - 1, "nothing else failed")

      const charges = (yield* ledgerOf(principal.workspaceId)).filter((r) => r.kind === "charge")
      assert.deepStrictEqual(charges.map((r) => [r.delta, r.quoteId]), [[-2 * UNIT_PRICE, quote.quote_id]])
      assert.strictEqual(yield* balanceOf(principal.workspaceId), 160 - 2 * UNIT_PRICE)
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), ["per_ana", "per_ben"])
    }))

  it.effect("many quotes confirmed at once against a balance for some of them: charges stop at zero, the rest deliver nothing", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const credits = yield* Credits
      const { principal } = yield* issuePrincipal("free")
      const affordable = 7
      yield* credits.grant(
        principal.workspaceId,
        principal.plan,
        affordable * UNIT_PRICE,
        GrantReason.make("test: enough for seven contacts")
      )
      const people = Array.from({ length: 30 }, (_, i) => `per_${String(i).padStart(2, "0")}`)
      const quotes = yield* Effect.forEach(people, (id) => Effect.map(quoteOf(principal, [id]), (quote) => ({ id, quote })))
      assert.isTrue(quotes.every(({ quote }) => quote.affordable), "each alone is affordable")

      const outcomes = yield* Effect.all(
        quotes.map(({ id, quote }) => Effect.either(confirm(principal, [id], quote.quote_token, `key-${id}`))),
        { concurrency: "unbounded" }
      )
      const delivered = outcomes.filter(Either.isRight).length
      assert.strictEqual(delivered, affordable)
      assert.deepStrictEqual(new Set(tagsOf(outcomes)), new Set(["InsufficientCredits"]))
      assert.strictEqual(tagsOf(outcomes).length, people.length - affordable)

      const owned = yield* ownedBy(principal.workspaceId)
      assert.strictEqual(owned.length, affordable, "a refused call delivered nothing")
      const paidFor = outcomes.flatMap((o, i) => (Either.isRight(o) ? [people[i]] : []))
      assert.deepStrictEqual(owned, paidFor.sort())

      const balance = yield* balanceOf(principal.workspaceId)
      assert.strictEqual(balance, 0)
      assert.strictEqual(yield* ledgerSum(principal.workspaceId), balance)
      const ledger = yield* ledgerOf(principal.workspaceId)
      assert.strictEqual(ledger.filter((r) => r.kind === "charge").length, affordable)
      assert.isTrue(ledger.every((r) => r.balanceAfter >= 0))
    }))
})
