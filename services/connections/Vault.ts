import { SqlClient } from "@effect/sql"
import { Context, Data, Effect, Layer, Option, Redacted, Ref } from "effect"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

/** The key cannot be used: missing where credentials were sealed with it, or not a key. */
export class VaultKeyUnusable extends Data.TaggedError("VaultKeyUnusable")<{ readonly message: string }> {}

/**
 * Where the 32-byte key that seals credentials at rest is kept. It is read when credentials are first
 * sealed or opened, not when a process starts: a command that never touches credentials never needs it.
 */
export interface VaultKeySource {
  /** How an operator names it in a message: `BREIN_SECRET_KEY`, or the file's path. */
  readonly origin: string
  /** The key; none when there is none yet (its file does not exist). */
  readonly read: Effect.Effect<Option.Option<Redacted.Redacted<Buffer>>, VaultKeyUnusable>
  /** Makes and keeps a new key (none yet). */
  readonly create: Effect.Effect<Redacted.Redacted<Buffer>, VaultKeyUnusable>
}

export class VaultKey extends Context.Tag("brein/connections/VaultKey")<VaultKey, VaultKeySource>() {
  /** A key given whole (tests, BREIN_SECRET_KEY). */
  static readonly fixed = (key: Buffer, origin = "the given key") =>
    Layer.succeed(VaultKey, {
      origin,
      read: Effect.succeed(Option.some(Redacted.make(key))),
      create: Effect.dieMessage("a fixed key is never made")
    })
}

const VERSION = "v1"

const missing = (origin: string, sealed: number) =>
  new VaultKeyUnusable({
    message: `the credentials key ${origin} is missing, and ${sealed} connection(s) hold credentials sealed with it: ` +
      "restore it (from a backup of the data folder) or set BREIN_SECRET_KEY to it. No new key is made: " +
      "credentials sealed with one could never be opened by the other"
  })

/** AES-256-GCM: each value gets its own IV; the tag makes tampering fail instead of decrypting garbage. */
export class Vault extends Effect.Service<Vault>()("brein/connections/Vault", {
  effect: Effect.gen(function* () {
    const source = yield* VaultKey
    const sql = yield* SqlClient.SqlClient
    const known = yield* Ref.make(Option.none<Buffer>())
    const once = yield* Effect.makeSemaphore(1)

    /**
     * The key, read once. With none yet, a first seal makes one, unless connections already hold sealed
     * credentials (the key they were sealed with was removed, or belongs to another data folder on the same
     * database): a new key would leave them sealed for good, so nothing is sealed.
     */
    const key = Effect.fn("Vault.key")(function* (sealing: boolean) {
      const cached = yield* Ref.get(known)
      if (Option.isSome(cached)) return cached.value
      return yield* once.withPermits(1)(Effect.gen(function* () {
        const again = yield* Ref.get(known)
        if (Option.isSome(again)) return again.value
        const read = yield* source.read
        const found = Option.isSome(read)
          ? read.value
          : yield* Effect.gen(function* () {
            const [{ sealed }] = yield* sql<{ sealed: number }>`SELECT count(*)::int AS sealed FROM connections WHERE credentials <> ''`
              .pipe(Effect.orDie)
            if (sealed > 0 || !sealing) return yield* missing(source.origin, sealed)
            return yield* source.create
          })
        yield* Ref.set(known, Option.some(Redacted.value(found)))
        return Redacted.value(found)
      }))
    })

    const seal = Effect.fn("Vault.seal")(function* (plaintext: string) {
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", yield* key(true), iv)
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
      return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":")
    })
    /** Fails with VaultKeyUnusable when the key cannot be used, or is not the key that sealed them: the operator's to fix. */
    const open = Effect.fn("Vault.open")(function* (sealed: string) {
      const secret = yield* key(false)
      return yield* Effect.try({
        try: () => {
          const [version, iv, tag, body] = sealed.split(":")
          if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new Error("unknown format")
          const decipher = createDecipheriv("aes-256-gcm", secret, Buffer.from(iv, "base64"))
          decipher.setAuthTag(Buffer.from(tag, "base64"))
          return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8")
        },
        catch: () =>
          new VaultKeyUnusable({
            message:
              `sealed credentials could not be opened with the credentials key ${source.origin} (another key sealed them, or they were altered)`
          })
      })
    })
    return { seal, open }
  })
}) {}
