import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"
import { databaseFromUrl } from "../../layers/Database.ts"
import { TestLogging } from "./TestLogging.ts"

const serverUrl = () => Redacted.make(inject("databaseUrl"))

const withDatabase = (url: Redacted.Redacted<string>, database: string) => {
  const target = new URL(Redacted.value(url))
  target.pathname = `/${database}`
  return Redacted.make(target.toString())
}

/** A new, empty database on the test server, created with `options` (CREATE DATABASE's), dropped when the scope closes. */
export const freshDatabaseWith = (options: string) =>
  Effect.gen(function* () {
    const admin = yield* PgClient.make({ url: serverUrl(), maxConnections: 1 })
    const name = `brein_t_${randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      admin.unsafe(`CREATE DATABASE ${name} ${options}`),
      () => Effect.orDie(admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    )
    return withDatabase(serverUrl(), name)
  }).pipe(Effect.provide(Reactivity.layer))

/** A new, empty database on the test server, dropped when the scope closes. */
export const freshDatabase = freshDatabaseWith("")

/** PgClient + SqlClient on a migrated database of its own (one per test file using it); logs at the tests' level. */
export const TestDatabase = Layer.unwrapScoped(Effect.map(freshDatabase, databaseFromUrl)).pipe(Layer.provide(TestLogging))
