import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Clock, ConfigProvider, Effect, Exit, Layer, Option } from "effect"
import { ConnectionLookup } from "../../../services/connections/ConnectionLookup.ts"
import { Signals } from "../../../services/Signals.ts"
import { waitUntil } from "../../support/Eventually.ts"
import { terminateListeners } from "../../support/Faults.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"

const settings = ConfigProvider.fromMap(new Map([["BREIN_SIGNALS_CHECK_SECONDS", "0.5"]])).pipe(
  ConfigProvider.orElse(() => ConfigProvider.fromEnv())
)

const Lookup = ConnectionLookup.DefaultWithoutDependencies.pipe(
  Layer.provideMerge(Signals.Default),
  Layer.provideMerge(TestDatabase),
  Layer.provide(Layer.setConfigProvider(settings))
)

const real = Clock.make()

/** A workspace with one connection, and a way to make every lookup of it fail in the database (and to undo that). */
const connection = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO workspaces (id, name, plan) VALUES ('ws_lookup', 'lookup', 'paid')`
  yield* sql`INSERT INTO connections (id, workspace_id, connector, credentials) VALUES ('conn_lookup', 'ws_lookup', 'sii', 'sealed')`
  const signals = yield* Signals
  yield* waitUntil(signals.live, (live) => live, { what: "LISTEN is live" }).pipe(Effect.withClock(real))
  return {
    id: "conn_lookup",
    breakDatabase: sql`ALTER TABLE connections RENAME TO connections_away`,
    repairDatabase: sql`ALTER TABLE connections_away RENAME TO connections`
  }
})

const found = (id: string) =>
  Effect.flatMap(ConnectionLookup, (lookup) => Effect.exit(lookup.find(id))).pipe(
    Effect.map(Exit.match({
      onFailure: () => "failed",
      onSuccess: (ref) => Option.match(ref, { onNone: () => "unknown", onSome: (r) => r.workspaceId })
    }))
  )

describe("ConnectionLookup", () => {
  it.effect(
    "a known connection is answered without the database until it is forgotten; a failed lookup is never remembered",
    () =>
      Effect.gen(function* () {
        const { id, breakDatabase, repairDatabase } = yield* connection
        assert.strictEqual(yield* found(id), "ws_lookup")
        yield* breakDatabase
        assert.strictEqual(yield* found(id), "ws_lookup", "answered from the cache")
        yield* Effect.flatMap(ConnectionLookup, (lookup) => lookup.forget(id))
        assert.strictEqual(yield* found(id), "failed", "asked the database once forgotten")
        assert.strictEqual(yield* found(id), "failed")
        yield* repairDatabase
        // The test clock never moves: a failure kept for "zero" time would be answered again here.
        assert.strictEqual(yield* found(id), "ws_lookup", "the failure was not remembered")
        assert.strictEqual(yield* found("conn_nobody"), "unknown")
      }).pipe(Effect.provide(Lookup)),
    60_000
  )

  it.effect("while LISTEN is down every lookup asks the database, and a known connection is not trusted", () =>
    Effect.gen(function* () {
      const { id, breakDatabase } = yield* connection
      const sql = yield* SqlClient.SqlClient
      const signals = yield* Signals
      assert.strictEqual(yield* found(id), "ws_lookup")
      yield* terminateListeners(sql)
      yield* waitUntil(signals.live, (live) => !live, { what: "LISTEN is seen to be down" }).pipe(Effect.withClock(real))
      yield* breakDatabase
      assert.strictEqual(yield* found(id), "failed", "asked the database, not the cache")
    }).pipe(Effect.provide(Lookup)), 60_000)
})
