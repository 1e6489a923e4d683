import { Config, Schema } from "effect"
import { setting, settingRefused } from "./Setting.ts"

export const Port = Schema.Int.pipe(Schema.between(1, 65535), Schema.brand("Port")).annotations({
  identifier: "Port",
  description: "A TCP port: an integer from 1 to 65535"
})
export type Port = typeof Port.Type

export const DEFAULT_PORT = Port.make(8787)

/** A port as written: decimal digits only (not 0x10, 1e3 or 4103.0, which a number parser reads), 1 to 65535. */
export const PortFromString = Schema.compose(
  Schema.compose(Schema.String.pipe(Schema.pattern(/^[0-9]{1,5}$/)), Schema.NumberFromString),
  Port
).annotations({ description: "an integer from 1 to 65535" })

/** Why `text`, given as `name`, is not a port. */
export const notAPort = (name: string, text: string) => settingRefused(name, PortFromString, text)

/** PORT from the configuration (8787 when unset); a value that is not a Port fails naming PORT and the value. */
export const PortConfig = setting("PORT", PortFromString).pipe(Config.withDefault(DEFAULT_PORT))
