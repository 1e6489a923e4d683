import { Config, Effect, Layer, Option, Redacted } from "effect"
import { AuditKey } from "../services/audit/AuditKey.ts"
import { CursorKey } from "../services/catalog/mercado/CursorKey.ts"
import { Market } from "../services/catalog/mercado/Market.ts"
import { SealedCursor } from "../services/catalog/mercado/SealedCursor.ts"

const configured = (text: string) =>
  Effect.filterOrDieMessage(
    Effect.sync(() => Buffer.from(text.trim(), "base64")),
    (key) => key.length >= 32,
    "BREIN_CURSOR_KEY must be at least 32 bytes, base64-encoded (openssl rand -base64 32)"
  ).pipe(Effect.map((key) => Redacted.make(new Uint8Array(key))))

/** BREIN_CURSOR_KEY if set; otherwise a key of its own derived from the audit key (which is never used as is). */
export const CursorKeyLive = Layer.effect(
  CursorKey,
  Effect.gen(function* () {
    const given = yield* Config.option(Config.redacted("BREIN_CURSOR_KEY"))
    if (Option.isSome(given)) return yield* configured(Redacted.value(given.value))
    const audit = yield* AuditKey
    const signing = yield* audit.forSigning
    const key = Option.isSome(signing) ? signing : yield* audit.forVerify
    if (Option.isNone(key)) {
      return yield* Effect.dieMessage("no key to seal cursors with: set BREIN_CURSOR_KEY (openssl rand -base64 32) or BREIN_AUDIT_KEY")
    }
    return CursorKey.derivedFrom(key.value)
  }).pipe(Effect.orDie)
)

/** The Mercado data set's reads and its sealed cursors. Needs SqlClient and a CursorKey. */
export const MarketLive = Layer.mergeAll(Market.Default, SealedCursor.Default)

/** The same, with the cursor key from configuration or the audit key. Needs SqlClient and AuditKey. */
export const MercadoLive = MarketLive.pipe(Layer.provide(CursorKeyLive))
