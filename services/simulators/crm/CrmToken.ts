import { Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

const PREFIX = "pat-sim-"

const signature = (secret: Redacted.Redacted<string>, portal: string) =>
  createHmac("sha256", Redacted.value(secret)).update(portal).digest("hex")

/** The private-app token of a simulated portal: the portal's id signed with the simulator's secret. */
export const simulatorToken = (secret: Redacted.Redacted<string>, portal: string): Redacted.Redacted<string> =>
  Redacted.make(`${PREFIX}${portal}.${signature(secret, portal)}`)

/** The portal a token opens, or undefined when the token is not one this simulator signed. */
export const portalOfToken = (secret: Redacted.Redacted<string>, token: string): string | undefined => {
  if (!token.startsWith(PREFIX)) return undefined
  const dot = token.lastIndexOf(".")
  if (dot <= PREFIX.length) return undefined
  const portal = token.slice(PREFIX.length, dot)
  const given = Buffer.from(token.slice(dot + 1))
  const expected = Buffer.from(signature(secret, portal))
  return given.length === expected.length && timingSafeEqual(given, expected) ? portal : undefined
}
