import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Config, Effect, Exit, Option, Redacted, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { startEmbeddedPostgres } from "../../layers/EmbeddedPostgres.ts"
import { TestLogging } from "./TestLogging.ts"

declare module "vitest" {
  export interface ProvidedContext {
    readonly databaseUrl: string
  }
}

// Durability is worthless for a throw-away cluster; without fsync CREATE DATABASE per test file is cheap.
const throwAwayFlags = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"]

const baseUrl = Effect.gen(function* () {
  const external = yield* Config.option(Config.string("DATABASE_URL"))
  if (Option.isSome(external) && external.value !== "") return external.value
  const fs = yield* FileSystem.FileSystem
  const root = yield* fs.makeTempDirectoryScoped({ prefix: "brein-test-pg-" })
  // as root the cluster runs as the postgres user, which must be able to enter the temp folder
  yield* fs.chmod(root, 0o755)
  const server = yield* startEmbeddedPostgres({ directory: `${root}/pg`, port: 0, postgresFlags: throwAwayFlags })
  return Redacted.value(server.url)
})

export default async function setup(project: TestProject) {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(baseUrl.pipe(Scope.extend(scope), Effect.provide([NodeContext.layer, TestLogging])))
  project.provide("databaseUrl", url)
  return () => Effect.runPromise(Scope.close(scope, Exit.void).pipe(Effect.provide(TestLogging)))
}
