import { FileSystem, Path } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { DataDirConfig } from "../schema/DataDir.ts"
import { VaultKey, VaultKeyUnusable } from "../services/connections/Vault.ts"
import { makeFolder } from "../services/Folders.ts"

const decodeKey = (text: string) => {
  const key = Buffer.from(text.trim(), "base64")
  return key.length === 32 ? Option.some(key) : Option.none()
}

const SHAPE = "32 bytes, base64-encoded (openssl rand -base64 32)"

/**
 * BREIN_SECRET_KEY if set (checked at start); otherwise the key kept in BREIN_DATA_DIR/secret.key, read when
 * credentials are first sealed or opened, and made by the first seal when there is none (see Vault.key).
 */
export const VaultKeyLive = Layer.unwrapEffect(Effect.gen(function* () {
  const configured = yield* Config.option(Config.redacted("BREIN_SECRET_KEY"))
  if (Option.isSome(configured)) {
    const key = decodeKey(Redacted.value(configured.value))
    if (Option.isNone(key)) return yield* Effect.dieMessage(`BREIN_SECRET_KEY must be ${SHAPE}`)
    return VaultKey.fixed(key.value, "BREIN_SECRET_KEY")
  }
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = yield* DataDirConfig
  const file = path.join(dir, "secret.key")
  const unusable = (why: string) => new VaultKeyUnusable({ message: `the credentials key ${file} ${why}` })
  const read = fs.readFileString(file).pipe(
    Effect.map((text) => Option.some(text)),
    Effect.catchTag(
      "SystemError",
      (error) =>
        error.reason === "NotFound" ? Effect.succeed(Option.none<string>()) : Effect.fail(unusable(`cannot be read: ${error.message}`))
    ),
    Effect.catchTag("BadArgument", (error) => Effect.fail(unusable(`cannot be read: ${error.message}`))),
    Effect.flatMap(Option.match({
      onNone: () => Effect.succeed(Option.none<Redacted.Redacted<Buffer>>()),
      onSome: (text) =>
        Option.match(decodeKey(text), {
          onNone: () => Effect.fail(unusable(`is not a key: it must hold ${SHAPE}`)),
          onSome: (key) => Effect.succeed(Option.some(Redacted.make(key)))
        })
    }))
  )
  const create = Effect.gen(function* () {
    yield* makeFolder(dir, 0o700)
    yield* fs.writeFileString(file, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" }).pipe(
      Effect.catchTag("SystemError", (e) => (e.reason === "AlreadyExists" ? Effect.void : Effect.fail(e)))
    )
    yield* Effect.logInfo("generated the credentials key").pipe(Effect.annotateLogs({ file }))
  }).pipe(
    Effect.mapError((error) => unusable(`cannot be written: ${error.message}`)),
    // another process may have made it first: the key is the one in the file
    Effect.zipRight(read),
    Effect.flatMap(Option.match({ onNone: () => Effect.fail(unusable("vanished as it was made")), onSome: Effect.succeed }))
  )
  return Layer.succeed(VaultKey, { origin: file, read, create })
})).pipe(Layer.provide(NodeContext.layer))
