import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Option, Redacted } from "effect"
import type Pg from "pg"
import { pgPool } from "../../layers/PgPool.ts"
import { isTransient } from "../../services/Database.ts"
import { stallingProxy } from "../../src/bench/StallingProxy.ts"
import { waitUntil } from "../support/Eventually.ts"
import { freshDatabase } from "../support/TestDatabase.ts"

/** The test's own connections, beside the pool under test: they hold the locks and watch pg_stat_activity. */
const sideClient = (url: Parameters<typeof PgClient.make>[0]["url"]) => PgClient.make({ url, maxConnections: 5 })
type Side = Effect.Effect.Success<ReturnType<typeof sideClient>>

/** Holds advisory lock `key` in a transaction of the test's own until `release` runs. */
const hold = (side: Side, key: number) =>
  Effect.gen(function* () {
    const locked = yield* Deferred.make<void>()
    const done = yield* Deferred.make<void>()
    const holder = yield* Effect.fork(side.withTransaction(Effect.gen(function* () {
      yield* side.unsafe(`SELECT pg_advisory_xact_lock(${key})`)
      yield* Deferred.succeed(locked, undefined)
      yield* Deferred.await(done)
    })))
    yield* Deferred.await(locked)
    return Effect.zipRight(Deferred.succeed(done, undefined), Fiber.join(holder))
  })

/** The backend whose statement waits on advisory lock `key` (its SQL names the key). */
const waitingOn = (side: Side, key: number) =>
  waitUntil(
    side.unsafe<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()
      AND wait_event_type = 'Lock' AND query = 'SELECT pg_advisory_xact_lock(${key}), pg_backend_pid() AS pid'`),
    (rows) => rows.length === 1,
    { what: `a statement waiting on lock ${key}` }
  ).pipe(Effect.map((rows) => rows[0]?.pid ?? 0))

const lockThenPid = (client: PgClient.PgClient, key: number) =>
  client.unsafe<{ pid: number }>(`SELECT pg_advisory_xact_lock(${key}), pg_backend_pid() AS pid`).pipe(
    Effect.map((rows) => rows[0]?.pid ?? 0)
  )

/** Waits until backend `pid` has left the server: its connection was closed. */
const gone = (side: Side, pid: number) =>
  waitUntil(
    side.unsafe<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${pid}`),
    (rows) => rows[0]?.n === 0,
    { what: `backend ${pid} leaving the server` }
  )

const backend = (client: PgClient.PgClient) =>
  client.unsafe<{ pid: number }>("SELECT pg_backend_pid() AS pid").pipe(Effect.map((rows) => rows[0]?.pid ?? 0))

const waiting = (pool: Pg.Pool, count: number) =>
  waitUntil(Effect.sync(() => pool.waitingCount), (n) => n === count, { what: `${count} callers waiting for a connection` })

/** On a database of its own: brein's pool of `maxConnections`, a PgClient on it, and the test's own connections. */
const poolUnderTest = (maxConnections: number) =>
  Effect.gen(function* () {
    const url = yield* freshDatabase
    const pool = yield* pgPool({ url, maxConnections })
    return { pool, client: yield* PgClient.fromPool({ acquire: Effect.succeed(pool) }), side: yield* sideClient(url) }
  })

/** On a database of its own reached through a proxy that can stop answering: brein's pool of 2 with a 300 ms bound, and a PgClient on it. */
const proxiedPool = Effect.gen(function* () {
  const url = yield* freshDatabase
  const proxy = yield* stallingProxy(Redacted.value(url))
  const pool = yield* pgPool({ url: Redacted.make(proxy.url), maxConnections: 2, connectTimeout: Duration.millis(300) })
  return { url, proxy, pool, client: yield* PgClient.fromPool({ acquire: Effect.succeed(pool) }) }
})

describe("brein's connection pool", () => {
  // @effect/sql-pg cancels the statement of an interrupted fiber with pg_cancel_backend(pid), sent on another
  // pooled connection. Sent after that statement ended, the cancel reaches whatever its connection runs by then.
  it.scopedLive(
    "a statement of an interrupted fiber is canceled on its own connection, never on the next caller's",
    () =>
      Effect.gen(function* () {
        const { client, pool, side } = yield* poolUnderTest(2)

        const [releaseA, releaseB, releaseC] = [yield* hold(side, 9001), yield* hold(side, 9003), yield* hold(side, 9002)]
        // A and B take the pool's two connections, each waiting on a lock the test holds.
        const a = yield* Effect.fork(lockThenPid(client, 9001))
        const pidA = yield* waitingOn(side, 9001)
        const b = yield* Effect.fork(lockThenPid(client, 9003))
        yield* waitingOn(side, 9003)
        // C waits for a connection; then A is interrupted, and its cancel request waits for one behind C.
        const c = yield* Effect.fork(lockThenPid(client, 9002))
        yield* waiting(pool, 1)
        yield* Fiber.interruptFork(a)
        yield* waiting(pool, 2)
        // A's statement ends before its cancel is sent: its connection is free, and C is first in line.
        yield* releaseA
        const pidC = yield* waitingOn(side, 9002)
        // B ends: the cancel request for A's backend goes out on B's connection; A's interruption is then over.
        yield* releaseB
        yield* Fiber.join(b)
        assert.isTrue(Exit.isInterrupted(yield* Fiber.await(a)), "A was interrupted")
        yield* releaseC
        const outcome = yield* Fiber.await(c)

        assert.isTrue(Exit.isSuccess(outcome), `C ran to its end: ${JSON.stringify(outcome)}`)
        assert.notStrictEqual(pidC, pidA, "C did not run on the connection of the interrupted statement")
        yield* gone(side, pidA)
      }).pipe(Effect.provide(Reactivity.layer)),
    60_000
  )

  it.scopedLive(
    "a connection whose statement was canceled inside a transaction is closed after its rollback",
    () =>
      Effect.gen(function* () {
        const { client, side } = yield* poolUnderTest(2)
        const release = yield* hold(side, 9101)

        const call = yield* Effect.fork(client.withTransaction(lockThenPid(client, 9101)))
        const pid = yield* waitingOn(side, 9101)
        yield* Fiber.interrupt(call)
        // The pool hands out the connection given back last: without the rule, the rolled back one.
        assert.notStrictEqual(yield* backend(client), pid, "the next statement runs on another connection")
        yield* gone(side, pid)
        yield* release
      }).pipe(Effect.provide(Reactivity.layer)),
    60_000
  )

  it.scopedLive("keeps a connection whose statements ended by themselves, failed ones too", () =>
    Effect.gen(function* () {
      const { client, pool } = yield* poolUnderTest(1)

      const first = yield* backend(client)
      const failed = yield* Effect.flip(client.unsafe("SELECT no_such_column FROM pg_class"))
      assert.strictEqual(failed._tag, "SqlError")
      yield* client.withTransaction(client.unsafe("SELECT 1"))
      assert.strictEqual(yield* backend(client), first, "one connection served every statement")
      assert.strictEqual(pool.totalCount, 1)
    }).pipe(Effect.provide(Reactivity.layer)), 60_000)

  it.scopedLive("a caller that waits for a connection longer than the bound fails with a transient error", () =>
    Effect.gen(function* () {
      const url = yield* freshDatabase
      const pool = yield* pgPool({ url, maxConnections: 1, connectTimeout: Duration.millis(300) })
      const client = yield* PgClient.fromPool({ acquire: Effect.succeed(pool) })
      // The pool's one connection is held by a transaction that does not end until the test says so.
      const done = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(client.withTransaction(Effect.zipRight(client.unsafe("SELECT 1"), Deferred.await(done))))
      yield* waitUntil(Effect.sync(() => [pool.totalCount, pool.idleCount]), ([total, idle]) => total === 1 && idle === 0, {
        what: "the transaction holding the pool's connection"
      })

      const refused = yield* Effect.flip(client.unsafe("SELECT 1"))
      assert.include(String(refused.cause), "timeout exceeded when trying to connect")
      assert.isTrue(isTransient(refused), "answered as a transient failure (503, or retried)")
      assert.isTrue(Option.isNone(yield* Fiber.poll(holder)), "the connection was held all along")

      yield* Deferred.succeed(done, undefined)
      yield* Fiber.join(holder)
      assert.deepStrictEqual(yield* client.unsafe<{ one: number }>("SELECT 1 AS one"), [{ one: 1 }], "served once it is free")
    }).pipe(Effect.provide(Reactivity.layer)), 60_000)

  it.scopedLive(
    "a new connection the database never answers fails within the bound, and the pool connects again later",
    () =>
      Effect.gen(function* () {
        const { client, pool, proxy, url } = yield* proxiedPool
        const side = yield* sideClient(url)
        const first = yield* backend(client)

        // The database stops answering new connections; the pool's one connection is lost.
        yield* proxy.stall
        yield* side.unsafe(`SELECT pg_terminate_backend(${first})`)
        yield* waitUntil(Effect.sync(() => pool.totalCount), (n) => n === 0, { what: "the pool losing its connection" })

        const refused = yield* Effect.flip(client.unsafe("SELECT 1"))
        assert.include(String(refused.cause), "connection timeout")
        assert.isTrue(isTransient(refused), "answered as a transient failure (503, or retried)")
        assert.isAtLeast(yield* proxy.stalled, 1, "the connection was made and left unanswered")

        yield* proxy.forward
        assert.notStrictEqual(yield* backend(client), first, "a new connection serves once the database answers")
      }).pipe(Effect.provide(Reactivity.layer)),
    60_000
  )

  it.scopedLive(
    "a statement the database stops answering fails as a lost connection; a long one it is running is left to finish",
    () =>
      Effect.gen(function* () {
        const { client, proxy } = yield* proxiedPool

        // Five times the bound without an answer, on a database that answers new connections: not touched.
        assert.deepStrictEqual(yield* client.unsafe<{ slept: string }>("SELECT pg_sleep(1.5)::text AS slept"), [{ slept: "" }])
        const before = yield* backend(client)

        // The database's process stops (or the path to it is cut): its connections hold their bytes.
        yield* proxy.freeze
        const lost = yield* Effect.flip(client.unsafe("SELECT 1"))
        assert.include(String(lost.cause), "Connection terminated")
        assert.isTrue(isTransient(lost), "answered as a transient failure (503, or retried)")

        yield* proxy.forward
        assert.notStrictEqual(yield* backend(client), before, "served again, on a new connection")
      }).pipe(Effect.provide(Reactivity.layer)),
    60_000
  )
})
