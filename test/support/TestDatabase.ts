import { Reactivity } from "@effect/experimental"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"
import { databaseFromUrl } from "../../layers/Database.ts"
import { TestLogging } from "./TestLogging.ts"

const serverUrl = () => Redacted.make(inject("databaseUrl"))

const withDatabase = (url: Redacted.Redacted<string>, database: string, role?: { readonly name: string; readonly password: string }) => {
  const target = new URL(Redacted.value(url))
  target.pathname = `/${database}`
  if (role !== undefined) {
    target.username = role.name
    target.password = role.password
  }
  return Redacted.make(target.toString())
}

const freshDatabaseName = (options: string) =>
  Effect.gen(function* () {
    const admin = yield* PgClient.make({ url: serverUrl(), maxConnections: 1 })
    const name = `brein_t_${randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      admin.unsafe(`CREATE DATABASE ${name} ${options}`),
      () => Effect.orDie(admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    )
    return name
  }).pipe(Effect.provide(Reactivity.layer))

/** A new, empty database on the test server, created with `options` (CREATE DATABASE's), dropped when the scope closes. */
export const freshDatabaseWith = (options: string) => Effect.map(freshDatabaseName(options), (name) => withDatabase(serverUrl(), name))

/** A role of the test server's (LOGIN, with a password, so that the embedded server's password rule admits it), dropped when the scope closes. */
export const freshRole = (prefix: string, attributes = "") =>
  Effect.gen(function* () {
    const admin = yield* PgClient.make({ url: serverUrl(), maxConnections: 1 })
    const role = { name: `${prefix}_${randomBytes(6).toString("hex")}`, password: randomBytes(12).toString("hex") }
    yield* Effect.acquireRelease(
      admin.unsafe(`CREATE ROLE ${role.name} LOGIN PASSWORD '${role.password}' ${attributes}`),
      () => Effect.orDie(admin.unsafe(`DROP ROLE IF EXISTS ${role.name}`))
    )
    return role
  }).pipe(Effect.provide(Reactivity.layer))

/**
 * The production split (README): a database owned by a role that migrates it and grants a second
 * role what the service needs (`brein db migrate --service-role`). URLs of both (and the server's superuser's);
 * all dropped with the scope.
 */
export const ownedDatabase = Effect.gen(function* () {
  const owner = yield* freshRole("brein_owner")
  const service = yield* freshRole("brein_service")
  const name = yield* freshDatabaseName(`OWNER ${owner.name}`)
  const urlFor = (role: { readonly name: string; readonly password: string }) => withDatabase(serverUrl(), name, role)
  return { name, owner, service, ownerUrl: urlFor(owner), serviceUrl: urlFor(service), adminUrl: withDatabase(serverUrl(), name), urlFor }
})

/** A new, empty database on the test server, dropped when the scope closes. */
export const freshDatabase = freshDatabaseWith("")

/** PgClient + SqlClient on a migrated database of its own (one per test file using it); logs at the tests' level. */
export const TestDatabase = Layer.unwrapScoped(Effect.map(freshDatabase, databaseFromUrl)).pipe(Layer.provide(TestLogging))
