import { createHash } from "node:crypto"

export type Fate = "deliver" | "bounce" | "reply" | "unsubscribe"

/**
 * What happens to a message sent to `address`, the same on every run: addresses at `bounce.*`,
 * `reply.*` and `unsubscribe.*` domains always bounce, get a reply or unsubscribe; any other
 * address bounces when a hash of the seed and the address falls in the first `bounceRate` share.
 */
export const scriptedFate = (script: { readonly seed: string; readonly bounceRate: number }, address: string): Fate => {
  const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase()
  if (domain.startsWith("bounce.")) return "bounce"
  if (domain.startsWith("reply.")) return "reply"
  if (domain.startsWith("unsubscribe.")) return "unsubscribe"
  const roll = createHash("sha256").update(`${script.seed}:${address.toLowerCase()}`).digest().readUInt32BE(0) / 2 ** 32
  return roll < script.bounceRate ? "bounce" : "deliver"
}
