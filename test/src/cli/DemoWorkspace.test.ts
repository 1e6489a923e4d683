import type { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Console, Effect, Layer, Option } from "effect"
import { DEMO_WORKSPACE, Workspaces } from "../../../services/workspace/Workspaces.ts"
import { announceDemo } from "../../../src/cli/ServeApp.ts"
import { commitFirst } from "../../support/Interleave.ts"
import { ServicesTest } from "../../support/TestLayers.ts"

/** What `brein keys create` does with no option: a key for the demo workspace, which it makes if there is none. */
const keysCreate = Effect.flatMap(Workspaces, (w) => w.issueKey({ workspace: DEMO_WORKSPACE, plan: Option.none() }))

/** The first start's part that makes the demo workspace, its banner (on a terminal) kept off the test's output. */
const firstStart = (terminal: boolean) =>
  Console.consoleWith((console) => Console.withConsole(announceDemo(terminal), { ...console, error: () => Effect.void }))

const insertsWorkspace = "INSERT INTO workspaces"

/** The demo workspace's plan and active keys after `steps`, run on a database no brein has started on. */
const onNewDatabase = <A, E>(steps: Effect.Effect<A, E, Workspaces | SqlClient.SqlClient>) =>
  Effect.gen(function* () {
    yield* steps
    const demo = (yield* (yield* Workspaces).list()).find((w) => w.name === DEMO_WORKSPACE)
    return { plan: demo?.plan, keys: demo?.keys }
  }).pipe(Effect.provide(Layer.fresh(ServicesTest)))

describe.each([false, true])("the demo workspace, first start on a terminal: %s", (terminal) => {
  it.effect("is paid when `keys create` makes it before the first start", () =>
    Effect.gen(function* () {
      const demo = yield* onNewDatabase(Effect.zipRight(keysCreate, firstStart(terminal)))
      assert.deepStrictEqual(demo, { plan: "paid", keys: 1 }, "the start issues no second key")
    }), 30_000)

  it.effect("is paid when `workspaces create demo` makes it before the first start", () =>
    Effect.gen(function* () {
      const made = Effect.flatMap(Workspaces, (w) => w.create(DEMO_WORKSPACE))
      const demo = yield* onNewDatabase(Effect.zipRight(made, firstStart(terminal)))
      assert.deepStrictEqual(demo, { plan: "paid", keys: 0 })
    }), 30_000)

  it.effect("is paid when the first start makes it before `keys create`", () =>
    Effect.gen(function* () {
      const demo = yield* onNewDatabase(Effect.zipRight(firstStart(terminal), keysCreate))
      assert.deepStrictEqual(demo, { plan: "paid", keys: terminal ? 2 : 1 })
    }), 30_000)

  // live: the race is watched in pg_stat_activity, polled on the real clock
  it.live("is paid when both make it at once and `keys create` commits first", () =>
    Effect.gen(function* () {
      const demo = yield* onNewDatabase(
        commitFirst({
          first: keysCreate,
          waitsAt: insertsWorkspace,
          what: "the first start waiting on the demo workspace keys create makes"
        })(
          firstStart(terminal)
        )
      )
      assert.deepStrictEqual(demo, { plan: "paid", keys: 1 })
    }), 30_000)

  // live: the race is watched in pg_stat_activity, polled on the real clock
  it.live("is paid when both make it at once and the first start commits first", () =>
    Effect.gen(function* () {
      const demo = yield* onNewDatabase(
        commitFirst({
          first: firstStart(terminal),
          waitsAt: insertsWorkspace,
          what: "keys create waiting on the demo workspace the start makes"
        })(
          keysCreate
        )
      )
      assert.deepStrictEqual(demo, { plan: "paid", keys: terminal ? 2 : 1 })
    }), 30_000)
})
