import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Clock, Effect, TestClock, Tracer } from "effect"
import { MarketSearchSuppliersOutput } from "../../../../schema/catalog/Mercado.ts"
import { CountSuppliersOutput } from "../../../../schema/catalog/MercadoAggregates.ts"
import { MarketSupplier } from "../../../../schema/catalog/MercadoRecords.ts"
import { paging } from "../../../../services/catalog/mercado/Paging.ts"
import { suppliers } from "../../../../services/catalog/mercado/Searches.ts"
import type { CallInfo } from "../../../../services/tools/Tool.ts"
import { SUITE_NOW } from "../../../support/SuiteClock.ts"
import { issuePrincipal } from "../../../support/TestLayers.ts"
import { RFC } from "./Fixtures.ts"
import { callAs, MercadoTest } from "./Support.ts"

const ids = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((r) => r.id)

// Beside the fixture's findings (sup_2 a multa, sup_3 presunto, sup_4 desvirtuado): sup_1 a sanction that
// ended in 2020, sup_4 a multa that ends at the end of 2030.
const moreFindings = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
    INSERT INTO market_risks (id, rfc, name, supplier_id, list, status, authority, published_on, ends_on, amount, detail) VALUES
      ('ri_ended', '${RFC.nandu}', 'Constructora Ñandú SA de CV', 'sup_1', 'sancion', 'inhabilitacion', 'SABG', '2018-01-10', '2020-06-30',
        NULL, 'Inhabilitación por dos años'),
      ('ri_running', '${RFC.norte}', 'Combustibles del Norte SA de CV', 'sup_4', 'sancion', 'multa', 'SABG', '2025-01-10', '2030-12-31',
        80000, 'Multa con plazo')`)
})

layer(MercadoTest, { timeout: 120_000 })("has_risk: one meaning, judged on the clock's day", (it) => {
  it.effect("the search's filter and column, a supplier's record and the count agree, and move with the date", () =>
    Effect.gen(function* () {
      yield* moreFindings
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      const search = (input: object) => callAs(MarketSearchSuppliersOutput, principal, "market_search_suppliers", input)
      const count = (hasRisk: boolean) =>
        Effect.map(callAs(CountSuppliersOutput, principal, "market_count_suppliers", { has_risk: hasRisk }), (r) => r.page.total)
      const record = (id: string) => Effect.map(callAs(MarketSupplier, principal, "market_get_supplier", { id }), (r) => r.page)

      // 2026-11-16: sup_1's sanction has ended, sup_4's multa runs (its cleared 69-B finding does not count)
      assert.deepStrictEqual(ids((yield* search({ has_risk: true })).page.suppliers), ["sup_2", "sup_3", "sup_4"])
      assert.deepStrictEqual(ids((yield* search({ has_risk: false })).page.suppliers), ["sup_1"])
      const all = (yield* search({})).page.suppliers
      assert.deepStrictEqual(all.map((s) => [s.id, s.has_risk]), [["sup_1", false], ["sup_2", true], ["sup_3", true], ["sup_4", true]])
      assert.deepStrictEqual([yield* count(true), yield* count(false)], [3, 1])
      const nandu = yield* record("sup_1")
      assert.deepStrictEqual([nandu.has_risk, nandu.risks.map((r) => r.id)], [false, ["ri_ended"]])
      assert.isTrue((yield* record("sup_4")).has_risk)

      // 2031: the multa has ended too
      yield* TestClock.setTime(Date.parse("2031-01-15T12:00:00Z"))
      assert.deepStrictEqual(ids((yield* search({ has_risk: true })).page.suppliers), ["sup_2", "sup_3"])
      assert.deepStrictEqual(ids((yield* search({ has_risk: false })).page.suppliers), ["sup_1", "sup_4"])
      assert.deepStrictEqual([yield* count(true), yield* count(false)], [2, 2])
      assert.isFalse((yield* record("sup_4")).has_risk)
    }))
})

/** A clock that passes midnight right after its first read: 2030-12-31 once, 2031-01-01 from then on. */
const midnightAfterFirstRead = () => {
  let reads = 0
  const millis = () => (reads++ === 0 ? Date.parse("2030-12-31T23:00:00Z") : Date.parse("2031-01-01T01:00:00Z"))
  const real = Clock.make()
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => real.unsafeCurrentTimeMillis(),
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: () => real.unsafeCurrentTimeNanos(),
    currentTimeNanos: real.currentTimeNanos,
    sleep: (duration) => real.sleep(duration)
  }
  return { clock, reads: () => reads }
}

layer(MercadoTest, { timeout: 120_000 })("has_risk: a search's page and its count judge one day", (it) => {
  it.effect("a search made across midnight counts what its page shows", () =>
    Effect.gen(function* () {
      yield* moreFindings
      const { principal } = yield* issuePrincipal("paid")
      const ctx: CallInfo = {
        surface: "http",
        principal,
        requestId: "req_midnight",
        sessionId: null,
        annotate: () => Effect.void,
        progress: () => Effect.void,
        span: Tracer.externalSpan({ traceId: "0".repeat(32), spanId: "0".repeat(16) })
      }
      const { clock, reads } = midnightAfterFirstRead()
      const search = paging("market_search_suppliers", suppliers)
      const { head, rows } = yield* search({ words: [], hasRisk: true }, { limit: 25 }, ctx).pipe(Effect.withClock(clock))
      // sup_4's multa runs through 2030-12-31, the day the search read: its page and its count both hold it
      assert.deepStrictEqual([ids(rows), head.total], [["sup_2", "sup_3", "sup_4"], 3])
      assert.strictEqual(reads(), 1)
      // any later read of the clock is past midnight, when the multa has ended
      assert.deepStrictEqual(
        yield* Effect.map(search({ words: [], hasRisk: true }, { limit: 25 }, ctx), ({ head, rows }) => [ids(rows), head.total]).pipe(
          Effect.withClock(clock)
        ),
        [["sup_2", "sup_3"], 2]
      )
    }))
})
