import { Context, Effect, Redacted } from "effect"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

/** The 32-byte key that seals credentials at rest. */
export class VaultKey extends Context.Tag("brein/connections/VaultKey")<VaultKey, Redacted.Redacted<Buffer>>() {}

const VERSION = "v1"

/** AES-256-GCM: each value gets its own IV; the tag makes tampering fail instead of decrypting garbage. */
export class Vault extends Effect.Service<Vault>()("brein/connections/Vault", {
  effect: Effect.map(VaultKey, (redacted) => {
    const key = Redacted.value(redacted)
    const seal = Effect.fn("Vault.seal")(function* (plaintext: string) {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", key, iv)
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":")
    })
    const open = Effect.fn("Vault.open")(function* (sealed: string) {
      return yield* Effect.try({
        try: () => {
          const [version, iv, tag, body] = sealed.split(":")
          if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new Error("unknown format")
          const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"))
          decipher.setAuthTag(Buffer.from(tag, "base64"))
          return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8")
        },
        catch: () => "sealed credentials could not be opened (wrong key or tampered)"
      }).pipe(Effect.orDieWith((message) => new Error(message)))
    })
    return { seal, open }
  })
}) {}
