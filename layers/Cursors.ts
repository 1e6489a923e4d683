import { Config, Effect, Layer, Option, Redacted } from "effect"
import { AuditKey } from "../services/audit/AuditKey.ts"
import { CursorKey } from "../services/catalog/CursorKey.ts"
import { SealedCursor } from "../services/catalog/SealedCursor.ts"
import { base64Key } from "../services/Crypto.ts"

/** BREIN_CURSOR_KEY if set; otherwise a key of its own derived from the audit key (which is never used as is). */
export const CursorKeyLive = Layer.effect(
  CursorKey,
  Effect.gen(function* () {
    const given = yield* Config.option(Config.redacted("BREIN_CURSOR_KEY"))
    if (Option.isSome(given)) return Redacted.make(yield* base64Key("BREIN_CURSOR_KEY", Redacted.value(given.value)))
    const audit = yield* AuditKey
    const signing = yield* audit.forSigning
    const key = Option.isSome(signing) ? signing : yield* audit.forVerify
    if (Option.isNone(key)) {
      return yield* Effect.dieMessage("no key to seal cursors with: set BREIN_CURSOR_KEY (openssl rand -base64 32) or BREIN_AUDIT_KEY")
    }
    return CursorKey.derivedFrom(key.value)
  }).pipe(Effect.orDie)
)

/** The sealed cursors of the catalog's searches (directory and Mercado), with the key from configuration or the audit key. Needs AuditKey. */
export const CursorsLive = SealedCursor.Default.pipe(Layer.provide(CursorKeyLive))
