import { PgClient } from "@effect/sql-pg"
import { Config, Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { DecimalFromString, setting, WholeNumberFromString } from "../schema/Setting.ts"
import { EmbeddedPostgres } from "./EmbeddedPostgres.ts"
import { MigrationsLive } from "./Migrations.ts"
import { CONNECT_TIMEOUT, naming, pgPool } from "./PgPool.ts"

export class DatabaseUrl extends Context.Tag("brein/layers/DatabaseUrl")<DatabaseUrl, Redacted.Redacted<string>>() {
  /** DATABASE_URL when set, otherwise the embedded server under BREIN_DATA_DIR (started or reused). */
  static readonly Live = Layer.unwrapEffect(
    Config.option(Config.redacted("DATABASE_URL")).pipe(
      Effect.map(Option.filter((url) => Redacted.value(url) !== "")),
      Effect.map(Option.match({
        onSome: (url) => Layer.succeed(DatabaseUrl, url),
        onNone: () =>
          Layer.effect(DatabaseUrl, Effect.map(EmbeddedPostgres, (server) => server.url)).pipe(
            Layer.provide(EmbeddedPostgres.Live)
          )
      }))
    )
  )
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

/** The configured database (DATABASE_URL, or the embedded one, started only once the pool's settings are known good). */
const onConfiguredDatabase = <A, E, R>(make: (url: Redacted.Redacted<string>, settings: PoolSettings) => Layer.Layer<A, E, R>) =>
  Layer.unwrapEffect(
    Effect.map(
      poolSettings,
      (settings) => Layer.unwrapEffect(Effect.map(DatabaseUrl, (url) => make(url, settings))).pipe(Layer.provide(DatabaseUrl.Live))
    )
  )

export const DatabaseLive = onConfiguredDatabase((url, settings) => MigrationsLive.pipe(Layer.provideMerge(clientOn(url, settings))))

/** The configured database as it is: for `brein db migrate`, which runs the migrations itself. */
export const DatabaseClientLive = onConfiguredDatabase(clientOn)
