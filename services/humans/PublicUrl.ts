import { Config, ConfigError, Either } from "effect"
import { PortConfig } from "../../schema/Port.ts"

/** Where people reach this server: sign-in links start with it, and an https URL makes the session cookie Secure. */
export const PublicUrl = Config.all({
  configured: Config.option(Config.string("BREIN_PUBLIC_URL")),
  port: PortConfig
}).pipe(
  Config.mapOrFail(({ configured, port }) => {
    const text = configured._tag === "Some" ? configured.value.trim().replace(/\/+$/, "") : `http://127.0.0.1:${port}`
    return URL.canParse(text) && /^https?:\/\//i.test(text)
      ? Either.right(new URL(text))
      : Either.left(ConfigError.InvalidData(["BREIN_PUBLIC_URL"], `"${text.slice(0, 80)}" is not an http(s) URL`))
  })
)
