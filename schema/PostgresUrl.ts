import { Config, ConfigError, Either, Option, Redacted, Schema } from "effect"
import { settingRefused } from "./Setting.ts"

/** URL's parser refuses a user without a host (postgres://me@/brein?host=/run/postgresql), which pg reads: the host is the query's. */
const parses = (text: string) => URL.canParse(text) || URL.canParse(text.replace("@/", "@host/"))

/** A PostgreSQL connection URL, as libpq and pg read one. */
export const PostgresUrl = Schema.String.pipe(
  Schema.filter((text) => /^postgres(ql)?:\/\//i.test(text) && parses(text)),
  Schema.annotations({ description: "a PostgreSQL URL, postgres://user@host:port/database" })
)

/** `text` with its password (what stands between the user's name and the last @, and a `password=` of the query) written as ***. */
export const withoutPassword = (text: string) => {
  const at = text.lastIndexOf("@")
  const slashes = text.indexOf("//")
  const colon = text.indexOf(":", slashes < 0 || slashes > at ? 0 : slashes + 2)
  const credentials = at < 0 || colon < 0 || colon > at ? text : `${text.slice(0, colon)}:***${text.slice(at)}`
  return credentials.replace(/([?&]password=)[^&#]*/gi, "$1***")
}

const decoded = (text: string) => Either.getOrElse(Either.try(() => decodeURIComponent(text)), () => text)

/**
 * Where a PostgreSQL URL points, as pg connects: host:port (the query's host and port win; unset, localhost
 * and 5432), or the socket file of a host that is a folder.
 */
export const targetOf = (text: string) => {
  const url = new URL(URL.canParse(text) ? text : text.replace("@/", "@host/"))
  const host = url.searchParams.get("host") ?? (URL.canParse(text) ? decoded(url.hostname) : "")
  const port = url.searchParams.get("port") ?? (url.port === "" ? "5432" : url.port)
  if (host.startsWith("/")) return `${host.replace(/\/$/, "")}/.s.PGSQL.${port}`
  return `${host === "" ? "localhost" : host}:${port}`
}

/**
 * DATABASE_URL: none when unset or empty (the embedded database). One that is not a PostgreSQL URL fails,
 * naming the setting and the form it takes, its password not shown.
 */
export const DatabaseUrlConfig = Config.option(Config.redacted("DATABASE_URL")).pipe(
  Config.map(Option.filter((url) => Redacted.value(url) !== "")),
  Config.mapOrFail((url) =>
    Option.isNone(url) || Schema.is(PostgresUrl)(Redacted.value(url.value))
      ? Either.right(url)
      : Either.left(ConfigError.InvalidData([], settingRefused("DATABASE_URL", PostgresUrl, withoutPassword(Redacted.value(url.value)))))
  )
)
