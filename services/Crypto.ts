import { Effect } from "effect"
import { createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto"

/** Hex SHA-256 of a text: key hashes, session keys, audit digests (one-shot: no Hash object per digest). */
export const sha256 = (text: string) => hash("sha256", text, "hex")

/** Hex HMAC-SHA256 of a text under a key: audit checkpoint signatures. */
export const hmacSha256 = (key: Uint8Array, text: string) => createHmac("sha256", key).update(text).digest("hex")

/** Whether two hex strings hold the same bytes, in time that does not depend on where they differ. */
export const sameHex = (given: string, expected: string) => {
  const a = Buffer.from(given, "hex")
  const b = Buffer.from(expected, "hex")
  return a.length === b.length && timingSafeEqual(a, b)
}

/** `bytes` random bytes as text: secrets, keys, names no one can guess. */
export const randomToken = (bytes: number, encoding: "hex" | "base64" | "base64url" = "base64url") => randomBytes(bytes).toString(encoding)

/** A new secret: the prefix and 24 random bytes in base64url. */
export const newSecret = (prefix: string) => Effect.sync(() => `${prefix}${randomToken(24)}`)

/** A key given as base64 text (the value of `variable`): at least 32 bytes, or the process stops saying what to set. */
export const base64Key = Effect.fn("Crypto.base64Key")(function* (variable: string, text: string) {
  const key = new Uint8Array(Buffer.from(text.trim(), "base64"))
  if (key.length < 32) return yield* Effect.dieMessage(`${variable} must be at least 32 bytes, base64-encoded (openssl rand -base64 32)`)
  return key
})
