import { assert, layer } from "@effect/vitest"
import { Clock, Effect, Layer, Redacted, TestClock } from "effect"
import { MarketSearchAwardsOutput, MarketSearchSuppliersOutput } from "../../../../schema/catalog/Mercado.ts"
import { CursorKey } from "../../../../services/catalog/CursorKey.ts"
import { SealedCursor } from "../../../../services/catalog/SealedCursor.ts"
import { finishedSpans, type SpanRecord, spansNamed, SpansTest } from "../../../support/Spans.ts"
import { LOADED_AT, reloadDataset } from "./Fixtures.ts"
import { callAs, failure, MercadoTest, principalOf } from "./Support.ts"

const firstPage = { state: "Jalisco", limit: 2 }

const awardsPage = Effect.gen(function* () {
  const principal = yield* principalOf
  const { page } = yield* callAs(MarketSearchAwardsOutput, principal, "market_search_awards", firstPage)
  assert.isNotNull(page.cursor)
  return { principal, cursor: page.cursor ?? "" }
})

const refusal = (error: { readonly _tag: string }) => ("reason" in error ? [error._tag, error.reason] : [error._tag])

/** The cursor with one character of its sealed body changed. */
const flipped = (cursor: string, at: number) => {
  const c = cursor[at] === "A" ? "B" : "A"
  return `${cursor.slice(0, at)}${c}${cursor.slice(at + 1)}`
}

layer(MercadoTest, { timeout: 120_000 })("sealed cursors", (it) => {
  it.effect("replaying a cursor within its life gives the same page and total", () =>
    Effect.gen(function* () {
      const { cursor, principal } = yield* awardsPage
      const once = yield* callAs(MarketSearchAwardsOutput, principal, "market_search_awards", { ...firstPage, cursor })
      yield* TestClock.adjust("29 minutes")
      const again = yield* callAs(MarketSearchAwardsOutput, principal, "market_search_awards", { ...firstPage, cursor })
      assert.deepStrictEqual(once.page.awards.map((a) => a.id), ["aw_2", "aw_1"])
      assert.deepStrictEqual(again.page, once.page)
    }))

  it.effect("a cursor with a byte changed is refused as tampered, and says to start again", () =>
    Effect.gen(function* () {
      const { cursor, principal } = yield* awardsPage
      for (const at of [3, cursor.indexOf(".") + 5]) {
        const { error } = yield* failure(principal, "market_search_awards", { ...firstPage, cursor: flipped(cursor, at) })
        assert.deepStrictEqual(refusal(error), ["CursorRejected", "tampered"])
        assert.include(error.message, "start again from the first page")
      }
      const junk = yield* failure(principal, "market_search_awards", { ...firstPage, cursor: "not-a-cursor" })
      assert.deepStrictEqual(refusal(junk.error), ["CursorRejected", "tampered"])
    }))

  it.effect("a cursor of another workspace is refused as foreign_workspace", () =>
    Effect.gen(function* () {
      const { cursor } = yield* awardsPage
      const other = yield* principalOf
      const { error } = yield* failure(other, "market_search_awards", { ...firstPage, cursor })
      assert.deepStrictEqual(refusal(error), ["CursorRejected", "foreign_workspace"])
    }))

  it.effect("a cursor sent with other filters or to another tool is refused as other_search", () =>
    Effect.gen(function* () {
      const { cursor, principal } = yield* awardsPage
      const filters = yield* failure(principal, "market_search_awards", { state: "Jalisco", limit: 2, year: 2024, cursor })
      assert.deepStrictEqual(refusal(filters.error), ["CursorRejected", "other_search"])
      const tool = yield* failure(principal, "market_search_opportunities", { state: "Jalisco", limit: 2, cursor })
      assert.deepStrictEqual(refusal(tool.error), ["CursorRejected", "other_search"])
      const limit = yield* callAs(MarketSearchAwardsOutput, principal, "market_search_awards", { state: "Jalisco", limit: 3, cursor })
      assert.deepStrictEqual(limit.page.awards.map((a) => a.id), ["aw_2", "aw_1"])
    }))

  it.effect("a cursor older than 30 minutes is stale", () =>
    Effect.gen(function* () {
      const { cursor, principal } = yield* awardsPage
      yield* TestClock.adjust("31 minutes")
      const { error } = yield* failure(principal, "market_search_awards", { ...firstPage, cursor })
      assert.deepStrictEqual(refusal(error), ["CursorRejected", "stale"])
    }))

  it.effect("a cursor dated more than a minute ahead of the server's clock is stale (it would otherwise live that much longer)", () =>
    Effect.gen(function* () {
      const { cursor, principal } = yield* awardsPage
      const issued = yield* Clock.currentTimeMillis
      yield* TestClock.setTime(issued - 60_000)
      const within = yield* callAs(MarketSearchAwardsOutput, principal, "market_search_awards", { ...firstPage, cursor })
      assert.deepStrictEqual(within.page.awards.map((a) => a.id), ["aw_2", "aw_1"])
      yield* TestClock.setTime(issued - 61_000)
      const { error } = yield* failure(principal, "market_search_awards", { ...firstPage, cursor })
      assert.deepStrictEqual(refusal(error), ["CursorRejected", "stale"])
      assert.include(error.message, "ahead of this server's clock")
    }))

  it.effect("a cursor issued before the data set was reloaded is stale", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const { page } = yield* callAs(MarketSearchSuppliersOutput, principal, "market_search_suppliers", { limit: 1 })
      yield* reloadDataset("2026-11-02T00:00:00Z")
      const stale = yield* failure(principal, "market_search_suppliers", { limit: 1, cursor: page.cursor }).pipe(
        Effect.ensuring(Effect.orDie(reloadDataset(LOADED_AT)))
      )
      assert.deepStrictEqual(refusal(stale.error), ["CursorRejected", "stale"])
    }))

  it.effect("a supplier the filters name is looked up on the first page, not again on the pages its cursor leads to", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf
      const search = (input: object) =>
        Effect.zip(callAs(MarketSearchAwardsOutput, principal, "market_search_awards", input), finishedSpans).pipe(
          Effect.provide(SpansTest)
        )
      const lookups = (spans: ReadonlyArray<SpanRecord>) => spansNamed(spans, "Unknown.refuse").length
      const [first, firstSpans] = yield* search({ supplier_id: "sup_1", limit: 1 })
      assert.strictEqual(lookups(firstSpans), 1)
      assert.isNotNull(first.page.cursor)
      const [next, nextSpans] = yield* search({ supplier_id: "sup_1", limit: 1, cursor: first.page.cursor })
      assert.strictEqual(lookups(nextSpans), 0)
      assert.strictEqual(next.page.total, first.page.total)
      assert.notDeepEqual(next.page.awards.map((a) => a.id), first.page.awards.map((a) => a.id))
    }))
})

const sealer = (key: string) =>
  Effect.provide(SealedCursor, SealedCursor.Default.pipe(Layer.provide(Layer.succeed(CursorKey, Redacted.make(Buffer.from(key))))))

const claims = {
  position: { at: "2024-06-20", id: "aw_3" },
  search: "s1",
  workspace: "ws_1",
  dataset: "fixture@1",
  total: 6,
  lowerBound: false
}
const expected = { toolId: "market_search_awards", search: "s1", workspace: "ws_1", dataset: "fixture@1" }

layer(Layer.empty)("SealedCursor", (it) => {
  it.effect("opens what it sealed; a cursor sealed under another key is tampered", () =>
    Effect.gen(function* () {
      const mine = yield* sealer("k".repeat(32))
      const theirs = yield* sealer("t".repeat(32))
      const cursor = yield* mine.seal(claims)
      const opened = yield* mine.open(cursor, expected)
      assert.deepStrictEqual([opened.position, opened.total, opened.lowerBound], [claims.position, 6, false])
      const foreign = yield* Effect.flip(theirs.open(cursor, expected))
      assert.deepStrictEqual([foreign._tag, foreign.reason], ["CursorRejected", "tampered"])
      const reloaded = yield* Effect.flip(mine.open(cursor, { ...expected, dataset: "fixture@2" }))
      assert.strictEqual(reloaded.reason, "stale")
    }))
})
