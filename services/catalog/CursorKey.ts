import { Context, Redacted } from "effect"
import { hmacSha256 } from "../Crypto.ts"

/** The server key that seals the catalog's cursors (the directory's and Mercado's): never the audit key itself. */
export class CursorKey extends Context.Tag("brein/catalog/CursorKey")<CursorKey, Redacted.Redacted<Uint8Array>>() {
  /** A key of its own derived from another secret (the audit key): knowing a cursor's key reveals nothing of it. */
  static derivedFrom(secret: Redacted.Redacted<Uint8Array>): Redacted.Redacted<Uint8Array> {
    return Redacted.make(new Uint8Array(Buffer.from(hmacSha256(Redacted.value(secret), "brein/cursor"), "hex")))
  }
}
