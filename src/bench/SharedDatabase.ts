import { FileSystem } from "@effect/platform"
import { Effect, Option, Redacted } from "effect"
import { startEmbeddedPostgres } from "../../layers/EmbeddedPostgres.ts"

/** DATABASE_URL when given, else one embedded PostgreSQL in a temp dir for the run, stopped and removed with the scope. */
export const sharedDatabase = Effect.fn("Bench.sharedDatabase")(function* (configured: Option.Option<Redacted.Redacted<string>>) {
  const given = Option.filter(configured, (url) => Redacted.value(url) !== "")
  if (Option.isSome(given)) return { url: Redacted.value(given.value), label: "PostgreSQL at DATABASE_URL" }
  const fs = yield* FileSystem.FileSystem
  const directory = yield* fs.makeTempDirectoryScoped({ prefix: "brein-bench-pg-" })
  // as root the cluster runs as the postgres user, which must be able to enter the temp folder
  yield* fs.chmod(directory, 0o755)
  const server = yield* startEmbeddedPostgres({ directory: `${directory}/pg`, port: 0 })
  return { url: Redacted.value(server.url), label: "embedded PostgreSQL" }
})
