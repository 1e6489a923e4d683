import { Reactivity } from "@effect/experimental"
import { FileSystem } from "@effect/platform"
import { PgClient } from "@effect/sql-pg"
import { Effect, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { startEmbeddedPostgres } from "../../layers/EmbeddedPostgres.ts"

/**
 * A database of the run's own on the server at `url`, dropped when the scope closes: a run never
 * meets the rows of another, whose audit checkpoints were signed with another run's key.
 */
const freshDatabaseAt = Effect.fn("Bench.freshDatabase")(function* (url: string) {
  const admin = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
  const name = `brein_bench_${randomBytes(6).toString("hex")}`
  yield* Effect.acquireRelease(
    admin.unsafe(`CREATE DATABASE ${name}`),
    () => Effect.orDie(admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  )
  const target = new URL(url)
  target.pathname = `/${name}`
  return target.toString()
})

/**
 * A new database for the run: on the server at DATABASE_URL when given (created and dropped with
 * the scope), else one embedded PostgreSQL in a temp dir, stopped and removed with the scope.
 */
export const sharedDatabase = Effect.fn("Bench.sharedDatabase")(function* (configured: Option.Option<Redacted.Redacted<string>>) {
  const given = Option.filter(configured, (url) => Redacted.value(url) !== "")
  if (Option.isSome(given)) return { url: yield* freshDatabaseAt(Redacted.value(given.value)), label: "PostgreSQL at DATABASE_URL" }
  const fs = yield* FileSystem.FileSystem
  const directory = yield* fs.makeTempDirectoryScoped({ prefix: "brein-bench-pg-" })
  // as root the cluster runs as the postgres user, which must be able to enter the temp folder
  yield* fs.chmod(directory, 0o755)
  const server = yield* startEmbeddedPostgres({ directory: `${directory}/pg`, port: 0 })
  return { url: Redacted.value(server.url), label: "embedded PostgreSQL" }
})
