import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import type { WorkspaceId } from "../../../schema/Ids.ts"
import type { Principal } from "../../../schema/Principal.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { SUITE_NOW } from "../../support/SuiteClock.ts"
import { callContext, issuePrincipal } from "../../support/TestLayers.ts"
import { BudgetServices, failsWith, ownedBy, READS_PER_HOUR_FREE, READS_PER_HOUR_PAID } from "./BudgetFixtures.ts"

const HOUR = 3_600_000
const at = (ms: number) => new Date(ms).toISOString()

const lookup = (principal: Principal) =>
  Effect.flatMap(Executor, (executor) => executor.call("test_lookup", {}, callContext(principal, { surface: "http" })))

const refusal = (principal: Principal) => failsWith(lookup(principal), "ReadCeilingReached")

const readRows = (workspaceId: WorkspaceId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM read_usage WHERE workspace_id = ${workspaceId}`
  ).pipe(Effect.map((rows) => rows[0]?.n))

/** What a take reads instead of counting the rows: it must stand for exactly the rows there are. */
const windowCount = (workspaceId: WorkspaceId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ used: number }>`SELECT used FROM read_windows WHERE workspace_id = ${workspaceId}`
  ).pipe(Effect.map((rows) => rows[0]?.used))

layer(BudgetServices)("the hourly read ceiling", (it) => {
  it.effect("a workspace makes its reads of a sliding hour; the next is refused until the oldest of them leaves it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("free")

      const first = yield* lookup(principal)
      assert.deepStrictEqual(first.data, { found: true })
      assert.deepStrictEqual(first.cost, { kind: "read", reads: 1, used: 1, limit: READS_PER_HOUR_FREE, resets_at: at(SUITE_NOW + HOUR) })

      yield* TestClock.adjust("30 minutes")
      const second = yield* lookup(principal)
      const third = yield* lookup(principal)
      assert.deepStrictEqual([second.cost, third.cost], [
        { kind: "read", reads: 1, used: 2, limit: READS_PER_HOUR_FREE, resets_at: at(SUITE_NOW + HOUR) },
        { kind: "read", reads: 1, used: 3, limit: READS_PER_HOUR_FREE, resets_at: at(SUITE_NOW + HOUR) }
      ])

      const refused = yield* refusal(principal)
      assert.strictEqual(refused.limit, READS_PER_HOUR_FREE)
      assert.strictEqual(refused.used, READS_PER_HOUR_FREE)
      assert.strictEqual(refused.resetsAt, at(SUITE_NOW + HOUR), "when the first read leaves the hour")
      assert.strictEqual(refused.retryAfterSeconds, 30 * 60)
      assert.strictEqual(yield* readRows(principal.workspaceId), 3, "a refused read is not counted")

      yield* TestClock.adjust(Duration.sum(Duration.minutes(29), Duration.seconds(59)))
      assert.strictEqual((yield* refusal(principal)).retryAfterSeconds, 1)

      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(
        (yield* lookup(principal)).cost,
        { kind: "read", reads: 1, used: 3, limit: READS_PER_HOUR_FREE, resets_at: at(SUITE_NOW + 90 * 60_000) },
        "the first read left the hour; the two made 30 minutes later still count"
      )
      const sliding = yield* refusal(principal)
      assert.strictEqual(sliding.resetsAt, at(SUITE_NOW + 90 * 60_000))
      assert.strictEqual(sliding.retryAfterSeconds, 30 * 60)
      assert.strictEqual(yield* readRows(principal.workspaceId), 3, "the read that left the hour is gone")
      assert.strictEqual(yield* windowCount(principal.workspaceId), 3, "and the count no longer holds it")

      yield* TestClock.adjust("2 hours")
      const later = yield* lookup(principal)
      assert.deepStrictEqual(later.cost, {
        kind: "read",
        reads: 1,
        used: 1,
        limit: READS_PER_HOUR_FREE,
        resets_at: at(SUITE_NOW + 240 * 60_000)
      })
      assert.deepStrictEqual([yield* readRows(principal.workspaceId), yield* windowCount(principal.workspaceId)], [1, 1])
    }))

  it.effect("another workspace has an hour of its own, with its plan's ceiling", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const busy = yield* issuePrincipal("free")
      for (let i = 0; i < READS_PER_HOUR_FREE; i++) yield* lookup(busy.principal)
      yield* refusal(busy.principal)

      const other = yield* issuePrincipal("free")
      assert.deepStrictEqual((yield* lookup(other.principal)).cost, {
        kind: "read",
        reads: 1,
        used: 1,
        limit: READS_PER_HOUR_FREE,
        resets_at: at(SUITE_NOW + HOUR)
      })

      const paid = yield* issuePrincipal("paid")
      for (let i = 1; i <= READS_PER_HOUR_PAID; i++) {
        const cost = (yield* lookup(paid.principal)).cost
        assert.strictEqual(cost?.kind === "read" ? `${cost.used}/${cost.limit}` : cost?.kind, `${i}/${READS_PER_HOUR_PAID}`)
      }
      assert.strictEqual((yield* refusal(paid.principal)).limit, READS_PER_HOUR_PAID)
    }))

  it.effect("a call that answers an error gives its read back: only answers count against the hour", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("free")
      const person = (tool: string, id: string) =>
        Effect.flatMap(Executor, (executor) => executor.call(tool, { id }, callContext(principal, { surface: "http" })))

      const found = yield* person("test_lookup_person", "per_ana")
      assert.deepStrictEqual(found.cost, { kind: "read", reads: 1, used: 1, limit: READS_PER_HOUR_FREE, resets_at: at(SUITE_NOW + HOUR) })
      for (let i = 0; i < 2 * READS_PER_HOUR_FREE; i++) {
        const missing = yield* failsWith(person("test_lookup_person", `nobody_${i}`), "RecordNotFound")
        assert.deepStrictEqual(missing.ids, [`nobody_${i}`])
      }
      assert.deepStrictEqual([yield* readRows(principal.workspaceId), yield* windowCount(principal.workspaceId)], [1, 1])

      // in a transaction of its own (a call that writes): rolled back first, then the read given back
      yield* failsWith(person("test_note_visit", "nobody"), "RecordNotFound")
      assert.deepStrictEqual(yield* ownedBy(principal.workspaceId), [], "the failed call's write did not stay")
      assert.deepStrictEqual([yield* readRows(principal.workspaceId), yield* windowCount(principal.workspaceId)], [1, 1])

      const next = yield* person("test_note_visit", "per_bea")
      assert.strictEqual(next.cost?.kind === "read" ? next.cost.used : undefined, 2)
      yield* lookup(principal)
      assert.strictEqual((yield* refusal(principal)).used, READS_PER_HOUR_FREE, "answers alone reach the ceiling")
      assert.deepStrictEqual([yield* readRows(principal.workspaceId), yield* windowCount(principal.workspaceId)], [3, 3])
    }))

  it.effect("reads taken at the same time never pass the ceiling", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(SUITE_NOW)
      const { principal } = yield* issuePrincipal("paid")
      const outcomes = yield* Effect.all(
        Array.from({ length: 40 }, () => Effect.either(lookup(principal))),
        { concurrency: "unbounded" }
      )
      const passed = outcomes.filter((o) => o._tag === "Right").length
      const refused = outcomes.flatMap((o) => (o._tag === "Left" ? [o.left._tag] : []))
      assert.strictEqual(passed, READS_PER_HOUR_PAID)
      assert.deepStrictEqual(new Set(refused), new Set(["ReadCeilingReached"]))
      assert.strictEqual(yield* readRows(principal.workspaceId), READS_PER_HOUR_PAID)
      assert.strictEqual(yield* windowCount(principal.workspaceId), READS_PER_HOUR_PAID)
    }))
})
