import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Redacted } from "effect"
import { probeClient } from "../../layers/PgLiveness.ts"
import { waitUntil } from "../support/Eventually.ts"
import { freshDatabase } from "../support/TestDatabase.ts"

describe("the pool's liveness probe", () => {
  // pg emits an error event on a client whose connection is lost after it connected; with no listener,
  // Node throws it out of the process (vitest reports it as an uncaught exception and fails the run).
  it.scopedLive("a probe whose connection is dropped mid-statement fails that statement and nothing else", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const side = yield* PgClient.make({ url, maxConnections: 1 })
      const probe = yield* Effect.acquireRelease(
        Effect.sync(() => probeClient({ connectionString: Redacted.value(url) }, Duration.seconds(5))),
        (probe) => Effect.promise(() => probe.end().catch(() => undefined))
      )
      yield* Effect.promise(() => probe.connect())
      const running = probe.query("SELECT pg_sleep(30)").then(() => "answered", (error: Error) => error.message)
      yield* waitUntil(
        side.unsafe<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE application_name = 'brein liveness' AND query = 'SELECT pg_sleep(30)'"
        ),
        (rows) => rows.length === 1,
        { what: "the probe's statement running" }
      )
      // What the probe does when its bound passes without an answer (a frozen database): it drops its socket.
      probe.connection.stream.destroy()
      // The fault happened: the statement failed as a connection lost without the client closing it.
      assert.strictEqual(yield* Effect.promise(() => running), "Connection terminated unexpectedly")
    }).pipe(Effect.provide(Reactivity.layer)), 60_000)
})
