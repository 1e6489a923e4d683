import { SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, type ConfigError, Context, Data, Duration, Effect, Layer, Option, Redacted } from "effect"
import { DatabaseUrlConfig, targetOf } from "../schema/PostgresUrl.ts"
import { DecimalFromString, setting, WholeNumberFromString } from "../schema/Setting.ts"
import type { FolderNotCreated } from "../services/Folders.ts"
import { EmbeddedPostgres, type EmbeddedPostgresFailed } from "./EmbeddedPostgres.ts"
import { MigrationsLive } from "./Migrations.ts"
import { CONNECT_TIMEOUT, naming, pgPool } from "./PgPool.ts"

export class DatabaseUrl extends Context.Tag("brein/layers/DatabaseUrl")<DatabaseUrl, Redacted.Redacted<string>>() {
  /** The URL DATABASE_URL gave, or else the embedded server's under BREIN_DATA_DIR (started or reused). */
  static readonly configuredOrEmbedded = (
    configured: Option.Option<Redacted.Redacted<string>>
  ): Layer.Layer<DatabaseUrl, ConfigError.ConfigError | EmbeddedPostgresFailed | FolderNotCreated> =>
    Option.match(configured, {
      onSome: (url) => Layer.succeed(DatabaseUrl, url),
      onNone: () =>
        Layer.effect(DatabaseUrl, Effect.map(EmbeddedPostgres, (server) => server.url)).pipe(Layer.provide(EmbeddedPostgres.Live))
    })

  /** DATABASE_URL when set (refused when it is not a PostgreSQL URL), otherwise the embedded server. */
  static readonly Live = Layer.unwrapEffect(Effect.map(DatabaseUrlConfig, DatabaseUrl.configuredOrEmbedded))
}

// PostgreSQL takes at most 262,143 connections (MAX_BACKENDS), whatever its max_connections
/** Connections per process. */
export const poolSize = setting("BREIN_DB_POOL_SIZE", WholeNumberFromString({ min: 1, max: 262_143 })).pipe(Config.withDefault(20))

/** How long a caller waits for a connection before it fails (503): BREIN_DB_CONNECT_TIMEOUT_SECONDS, 0 = without bound. */
export const connectTimeout = setting(
  "BREIN_DB_CONNECT_TIMEOUT_SECONDS",
  // past 24.8 days Node's timers fire at once, so that pg's bound would end every connection attempt
  DecimalFromString({ min: 0, max: 86_400 }).annotations({
    description: "a number of seconds from 0 (wait without bound) to 86,400 (a day)"
  })
).pipe(Config.map(Duration.seconds), Config.withDefault(CONNECT_TIMEOUT))

/** The pool's settings, read (and refused, if bad) before any database is started or reached. */
const poolSettings = Config.all({ maxConnections: poolSize, connectTimeout })

type PoolSettings = Config.Config.Success<typeof poolSettings>

const clientOn = (url: Redacted.Redacted<string>, settings: PoolSettings) =>
  PgClient.layerFromPool({ acquire: pgPool({ url, ...settings }), ...naming })

/**
 * PgClient + SqlClient on the database at `url`, as it is (no migrations), on a pool that never hands out
 * a connection whose statement a cancel request was sent for (./PgPool.ts).
 */
export const clientFromUrl = (url: Redacted.Redacted<string>) =>
  Layer.unwrapEffect(Effect.map(poolSettings, (settings) => clientOn(url, settings)))

/** PgClient + SqlClient on the database at `url`, migrated. */
export const databaseFromUrl = (url: Redacted.Redacted<string>) => MigrationsLive.pipe(Layer.provideMerge(clientFromUrl(url)))

/** The database DATABASE_URL names could not be reached: said with where it points, never with its password. */
export class DatabaseUnreachable extends Data.TaggedError("DatabaseUnreachable")<{ readonly message: string }> {}

const NOTHING_ANSWERS = new Set(["ECONNREFUSED", "ENOENT"])
const NO_SUCH_HOST = new Set(["ENOTFOUND", "EAI_AGAIN"])

const codeOf = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : ""

/** A connection DATABASE_URL's server refused, or whose host does not resolve, as DatabaseUnreachable; any other failure as it is. */
const unreachable = (configured: Option.Option<Redacted.Redacted<string>>) => <E>(error: E): E | DatabaseUnreachable => {
  if (Option.isNone(configured) || !(error instanceof SqlError.SqlError)) return error
  const code = codeOf(error.cause)
  const how = error.cause instanceof Error && error.cause.message !== "" ? ` (${error.cause.message})` : ""
  const where = targetOf(Redacted.value(configured.value))
  if (NOTHING_ANSWERS.has(code)) {
    return new DatabaseUnreachable({
      message: `nothing answers at ${where}, where DATABASE_URL points${how}: start PostgreSQL there, or set DATABASE_URL to where it runs`
    })
  }
  if (NO_SUCH_HOST.has(code)) {
    return new DatabaseUnreachable({ message: `DATABASE_URL points at ${where}, and that host name does not resolve${how}` })
  }
  return error
}

/** The configured database (DATABASE_URL, or the embedded one, started only once the pool's settings are known good). */
const onConfiguredDatabase = <A, E, R>(make: (url: Redacted.Redacted<string>, settings: PoolSettings) => Layer.Layer<A, E, R>) =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.all([poolSettings, DatabaseUrlConfig]),
      ([settings, configured]) =>
        Layer.unwrapEffect(Effect.map(DatabaseUrl, (url) => make(url, settings))).pipe(
          Layer.provide(DatabaseUrl.configuredOrEmbedded(configured)),
          Layer.mapError(unreachable(configured))
        )
    )
  )

export const DatabaseLive = onConfiguredDatabase((url, settings) => MigrationsLive.pipe(Layer.provideMerge(clientOn(url, settings))))

/** The configured database as it is: for `brein db migrate`, which runs the migrations itself. */
export const DatabaseClientLive = onConfiguredDatabase(clientOn)
