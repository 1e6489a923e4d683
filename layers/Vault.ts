import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { DataDirConfig } from "../schema/DataDir.ts"
import { VaultKey } from "../services/connections/Vault.ts"

const decodeKey = (text: string) =>
  Effect.filterOrDieMessage(
    Effect.sync(() => Buffer.from(text.trim(), "base64")),
    (key) => key.length === 32,
    "BREIN_SECRET_KEY must be 32 bytes, base64-encoded (openssl rand -base64 32)"
  )

/** BREIN_SECRET_KEY if set; otherwise a key generated once and kept in BREIN_DATA_DIR/secret.key. */
export const VaultKeyLive = Layer.effect(
  VaultKey,
  Effect.gen(function* () {
    const configured = yield* Config.option(Config.redacted("BREIN_SECRET_KEY"))
    if (Option.isSome(configured)) return Redacted.make(yield* decodeKey(Redacted.value(configured.value)))
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = yield* DataDirConfig
    const file = path.join(dir, "secret.key")
    if (!(yield* fs.exists(file))) {
      yield* fs.makeDirectory(dir, { recursive: true })
      yield* fs.writeFileString(file, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" }).pipe(
        Effect.catchTag("SystemError", (e) => (e.reason === "AlreadyExists" ? Effect.void : Effect.fail(e)))
      )
      yield* Effect.logInfo("generated the credentials key").pipe(Effect.annotateLogs({ file }))
    }
    return Redacted.make(yield* decodeKey(yield* fs.readFileString(file)))
  }).pipe(Effect.orDie)
).pipe(Layer.provide(NodeContext.layer))
