import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Option, Schema } from "effect"
import { isTransient, readSnapshot, sqlState } from "../../services/Database.ts"
import { TestDatabase } from "../support/TestDatabase.ts"

const Counted = Schema.Array(Schema.Struct({ n: Schema.Int }))

layer(TestDatabase, { timeout: 60_000 })("readSnapshot", (it) => {
  const probe = Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const table = `snapshot_probe_${Math.random().toString(36).slice(2, 8)}`
    yield* sql.unsafe(`CREATE TABLE ${table} (n int NOT NULL); INSERT INTO ${table} VALUES (1)`)
    const count = sql.unsafe(`SELECT count(*)::int AS n FROM ${table}`).pipe(
      Effect.flatMap(Schema.decodeUnknown(Counted)),
      Effect.map(([row]) => row?.n ?? -1),
      Effect.orDie
    )
    const insert = sql.unsafe(`INSERT INTO ${table} VALUES (2)`)
    return { sql, count, insert }
  })

  /** Two counts with a row inserted and committed, from another connection, between them. */
  const countsAround = (wrap: <A, E, R>(sql: SqlClient.SqlClient, reads: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const { count, insert, sql } = yield* probe
      const between = yield* Deferred.make<void>()
      const inserted = yield* Deferred.make<void>()
      const reads = yield* Effect.fork(wrap(
        sql,
        Effect.gen(function* () {
          const first = yield* count
          yield* Deferred.succeed(between, undefined)
          yield* Deferred.await(inserted)
          return [first, yield* count] as const
        })
      ))
      yield* Deferred.await(between)
      yield* insert
      yield* Deferred.succeed(inserted, undefined)
      const counts = yield* Fiber.join(reads)
      return { counts, after: yield* count }
    })

  it.effect("without it, a read after a commit sees the commit (the fault the snapshot is for)", () =>
    Effect.gen(function* () {
      const { after, counts } = yield* countsAround((_, reads) => reads)
      assert.deepStrictEqual(counts, [1, 2])
      assert.strictEqual(after, 2)
    }))

  it.effect("its statements all read the database as it was at the first of them", () =>
    Effect.gen(function* () {
      const { after, counts } = yield* countsAround(readSnapshot)
      assert.deepStrictEqual(counts, [1, 1])
      assert.strictEqual(after, 2, "the row was committed between the two reads")
    }))

  it.effect("inside a caller's transaction it runs there, after that transaction's first statement", () =>
    Effect.gen(function* () {
      const { count, sql } = yield* probe
      const counts = yield* sql.withTransaction(
        Effect.flatMap(count, (first) => Effect.map(readSnapshot(sql, count), (second) => [first, second] as const))
      )
      assert.deepStrictEqual(counts, [1, 1])
    }))

  it.effect("it only reads: a write in it dies with PostgreSQL's read-only refusal, and nothing is written", () =>
    Effect.gen(function* () {
      const { count, insert, sql } = yield* probe
      const exit = yield* Effect.exit(readSnapshot(sql, Effect.orDie(insert)))
      assert.isTrue(Exit.isFailure(exit))
      const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none()
      assert.strictEqual(Option.map(defect, sqlState).pipe(Option.getOrUndefined), "25006")
      assert.strictEqual(yield* count, 1)
    }))
})

layer(TestDatabase, { timeout: 60_000 })("isTransient", (it) => {
  it.effect("a statement PostgreSQL refuses as a protocol violation (over 65,535 parameters) is not transient: it would be refused again", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const values = Array.from({ length: 70_000 }, (_, i) => i)
      const statement = sql.unsafe(`SELECT 1 WHERE 0 IN (${values.map((_, i) => `$${i + 1}`).join(", ")})`, values)
      const refused = [yield* Effect.flip(statement), yield* Effect.flip(statement)]
      assert.deepStrictEqual(refused.map(sqlState), ["08P01", "08P01"])
      assert.deepStrictEqual(refused.map(isTransient), [false, false])
      assert.isTrue(isTransient({ code: "08006" }), "a connection failure still is")
    }))
})
