import { Config, Effect, Option, Redacted } from "effect"
import { hkdfSync } from "node:crypto"
import { AuditKey } from "../audit/AuditKey.ts"
import { hmacSha256, sameHex } from "../Crypto.ts"

const INFO = "brein/humans/csrf"

const fromConfigured = (text: string) =>
  Effect.filterOrDieMessage(
    Effect.sync(() => new Uint8Array(Buffer.from(text.trim(), "base64"))),
    (key) => key.length >= 32,
    "BREIN_SESSION_KEY must be at least 32 bytes, base64-encoded (openssl rand -base64 32)"
  )

// A key of its own, derived one way from the audit key: a CSRF token never reveals or reuses the audit key.
const derived = (audit: Uint8Array) => new Uint8Array(hkdfSync("sha256", audit, "brein", INFO, 32))

/** The CSRF token of a session: an HMAC of the session id under a server key, never stored. */
export class Csrf extends Effect.Service<Csrf>()("brein/humans/Csrf", {
  effect: Effect.gen(function* () {
    const configured = yield* Config.option(Config.redacted("BREIN_SESSION_KEY")).pipe(Effect.orDie)
    const audit = yield* AuditKey
    const key = yield* Effect.cached(
      Option.match(configured, {
        onSome: (text) => fromConfigured(Redacted.value(text)),
        onNone: () =>
          Effect.flatMap(
            audit.forSigning,
            Option.match({
              onSome: (signing) => Effect.succeed(derived(Redacted.value(signing))),
              onNone: () => Effect.dieMessage("no key for CSRF tokens: set BREIN_SESSION_KEY")
            })
          )
      })
    )

    const tokenFor = Effect.fn("Csrf.tokenFor")(function* (sessionId: string) {
      return hmacSha256(yield* key, `csrf\n${sessionId}`)
    })

    const matches = Effect.fn("Csrf.matches")(function* (sessionId: string, given: string) {
      return sameHex(given, yield* tokenFor(sessionId))
    })

    return { tokenFor, matches } as const
  })
}) {}
