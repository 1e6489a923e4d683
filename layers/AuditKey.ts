import { FileSystem, Path } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Array as Arr, Cause, Config, Effect, Layer, Option, Redacted, Schema } from "effect"
import type { Checkpoint } from "../schema/audit/Checkpoint.ts"
import { DataDirConfig } from "../schema/DataDir.ts"
import { AuditKey, type AuditKeyApi, type Witness } from "../services/audit/AuditKey.ts"
import { AuditStore } from "../services/audit/AuditStore.ts"
import { signatureHolds } from "../services/audit/Chain.ts"
import { base64Key, randomToken } from "../services/Crypto.ts"
import { makeFolder } from "../services/Folders.ts"

const WitnessFile = Schema.parseJson(
  Schema.Record({ key: Schema.String, value: Schema.Struct({ seq: Schema.Number, signature: Schema.String }) })
)

const none: typeof WitnessFile.Type = {}
// A data folder may serve many databases over time (tests do): keep the newest few.
const KEEP = 64

/**
 * The key is missing from a data folder whose witness shows checkpoints were signed here. A new key would
 * break every unsubscribe link and CSRF token made from the old one (unless BREIN_UNSUBSCRIBE_KEY and
 * BREIN_SESSION_KEY are set) and could not vouch for the older checkpoints, so none is made.
 */
export const keyLost = (keyFile: string, witnessFile: string) =>
  `the audit key ${keyFile} is missing, but checkpoints were signed with one in this data folder (${witnessFile}): ` +
  `restore audit.key from a backup, or set BREIN_AUDIT_KEY to the key used before; a new key would break every unsubscribe ` +
  `link already sent and could not vouch for the older checkpoints. To start over with a new key, remove ${witnessFile}`

/**
 * The database holds checkpoints, but this process has no key: `brein audit verify` checks every checkpoint with one key,
 * so a key made here would leave the checkpoints it signs, or the earlier ones, forged to it for good.
 */
export const keyAbsent = (keyFile: string) =>
  `the audit key ${keyFile} is missing (and BREIN_AUDIT_KEY is not set), but this database holds checkpoints signed with one: ` +
  `copy audit.key from the data folder of the server that signed them (or restore it from a backup), or set BREIN_AUDIT_KEY to that key; ` +
  `a new key would make brein audit verify report checkpoint_forged from then on`

/** The key at hand (BREIN_AUDIT_KEY when `setting`, else the file) did not sign the database's checkpoints. */
export const keyDiffers = (keyFile: string, setting: boolean, seq: number) =>
  `the audit key ${setting ? "in BREIN_AUDIT_KEY" : keyFile} did not sign this database's checkpoints (checkpoint ${seq} does not verify ` +
  `with it), and every process on one database must sign with the same key: ` +
  (setting
    ? `set BREIN_AUDIT_KEY to the key of the server that signed them (its audit.key)`
    : `replace ${keyFile} with the audit.key of the server that signed them, or set BREIN_AUDIT_KEY to that key`) +
  `; signing with this one would make brein audit verify report checkpoint_forged from then on`

/** The audit key from BREIN_AUDIT_KEY if given, else dir/audit.key; the witness in dir/audit.witness. */
export const auditKeyIn = (configured: Option.Option<Redacted.Redacted<string>>, dir: string, signs = true) =>
  Layer.effect(
    AuditKey,
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const keyFile = path.join(dir, "audit.key")
      const witnessFile = path.join(dir, "audit.witness")
      const fromFile = fs.exists(keyFile).pipe(
        Effect.flatMap((exists) => (exists ? Effect.map(fs.readFileString(keyFile), Option.some) : Effect.succeedNone))
      )
      const read = Option.match(configured, {
        onSome: (text) => Effect.succeed(Option.some(Redacted.value(text))),
        onNone: () => fromFile
      }).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (text) => Effect.map(base64Key("BREIN_AUDIT_KEY", text), (key) => Option.some(Redacted.make(key)))
        }))
      )
      const readAll = fs.exists(witnessFile).pipe(
        Effect.flatMap((
          exists
        ) => (exists ? Effect.flatMap(fs.readFileString(witnessFile), Schema.decode(WitnessFile)) : Effect.succeed(none))),
        Effect.catchAll((error) => Effect.as(Effect.logWarning("the audit witness file is unreadable", Cause.fail(error)), none))
      )
      const generate = Effect.gen(function* () {
        // a witness is written only by a process that signed with a key: the key was here and is lost
        if (Object.keys(yield* readAll).length > 0) return yield* Effect.dieMessage(keyLost(keyFile, witnessFile))
        yield* makeFolder(dir, 0o700)
        yield* fs.writeFileString(keyFile, randomToken(32, "base64"), { mode: 0o600, flag: "wx" }).pipe(
          Effect.catchTag("SystemError", (e) => (e.reason === "AlreadyExists" ? Effect.void : Effect.fail(e)))
        )
        yield* Effect.logInfo("generated the audit checkpoint key").pipe(Effect.annotateLogs({ file: keyFile }))
      })
      const forSigning = yield* Effect.cached(
        read.pipe(
          Effect.flatMap(Option.match({
            onSome: Effect.succeed,
            onNone: () => Effect.zipRight(generate, Effect.flatMap(read, (key) => Effect.orDie(key)))
          })),
          Effect.map(Option.some),
          Effect.orDie
        )
      )
      const readWitness = Effect.fn("AuditKey.readWitness")(function* (database: string) {
        const all = yield* readAll
        return Option.map(Option.fromNullable(all[database]), (w): Witness => ({ database, ...w }))
      })
      const writeWitness = Effect.fn("AuditKey.writeWitness")(
        function* (witness: Witness) {
          if (!(yield* fs.exists(dir))) return
          const all = yield* readAll
          const current = all[witness.database]
          if (current !== undefined && current.seq >= witness.seq) return
          const others = Object.entries(all).filter(([database]) => database !== witness.database).slice(-(KEEP - 1))
          const next = Object.fromEntries([...others, [witness.database, { seq: witness.seq, signature: witness.signature }]])
          const temporary = `${witnessFile}.${randomToken(4, "hex")}`
          yield* fs.writeFileString(temporary, JSON.stringify(next), { mode: 0o600 })
          yield* fs.rename(temporary, witnessFile)
        },
        Effect.catchAll((error) => Effect.logWarning("the audit witness file could not be written", Cause.fail(error)))
      )
      return AuditKey.of({ forVerify: Effect.orDie(read), forSigning: signs ? forSigning : Effect.succeedNone, readWitness, writeWitness })
    })
  ).pipe(Layer.provide(NodeContext.layer))

// `brein audit verify` checks every checkpoint with one key: the key that signs on must be the one that signed the first.
const signsCheckpoints = Effect.fn("AuditKey.signsCheckpoints")(
  function* (key: AuditKeyApi, first: Checkpoint, keyFile: string, setting: boolean) {
    const own = yield* key.forVerify
    if (Option.isNone(own)) return yield* Effect.dieMessage(keyAbsent(keyFile))
    if (!signatureHolds(Redacted.value(own.value), first)) return yield* Effect.dieMessage(keyDiffers(keyFile, setting, first.seq))
  }
)

/**
 * The audit key of a process that signs, settled at start: where the database already holds checkpoints it must be
 * a key that signed them (none is made); over a database without any, it is read or made as `auditKeyIn` does.
 */
export const signingKeyIn = (configured: Option.Option<Redacted.Redacted<string>>, dir: string) =>
  Layer.effect(
    AuditKey,
    Effect.gen(function* () {
      const key = yield* AuditKey
      const store = yield* AuditStore
      const path = yield* Path.Path
      const first = yield* Effect.map(store.checkpoints(0, 1), Arr.head).pipe(Effect.orDie)
      if (Option.isSome(first)) yield* signsCheckpoints(key, first.value, path.join(dir, "audit.key"), Option.isSome(configured))
      // read or made now: at the first checkpoint a key that cannot be had is only logged, and the process serves on unsigned
      yield* key.forSigning
      return key
    })
  ).pipe(Layer.provide(Layer.merge(auditKeyIn(configured, dir), NodeContext.layer)))

const fromConfig = <E, R>(keyIn: (configured: Option.Option<Redacted.Redacted<string>>, dir: string) => Layer.Layer<AuditKey, E, R>) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const configured = yield* Config.option(Config.redacted("BREIN_AUDIT_KEY"))
      const dir = yield* DataDirConfig
      return keyIn(configured, dir)
    }).pipe(Effect.orDie)
  )

/**
 * BREIN_AUDIT_KEY if set; otherwise a key generated once and kept in BREIN_DATA_DIR/audit.key. Refused at start
 * (the process stops) when the database holds checkpoints this key did not sign, or it would be made over them.
 */
export const AuditKeyLive = fromConfig(signingKeyIn)

/** The same key for checking only: operator commands write audit rows but leave the checkpoints to the service. */
export const AuditKeyVerifyOnly = fromConfig((configured, dir) => auditKeyIn(configured, dir, false))
