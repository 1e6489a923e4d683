import { Effect, Option, Redacted } from "effect"
import { hkdfSync } from "node:crypto"
import { UNSUBSCRIBE_PREFIX } from "../../../schema/http/Unsubscribe.ts"
import { AuditKey } from "../../audit/AuditKey.ts"
import { hmacSha256, sameHex } from "../../Crypto.ts"
import { PublicUrl } from "../../humans/PublicUrl.ts"

/** Writes a recipient's unsubscribe link: the same for the same sequence and person, in the preview and in what is sent. */
export type UnsubscribeWriter = (sequenceId: string, personId: string) => string

const INFO = "brein/sequences/unsubscribe"
const TOKEN = /^[0-9a-f]{32}$/

// A key of its own, derived one way from the audit key: a link never reveals or reuses the audit key.
const derived = (audit: Uint8Array) => new Uint8Array(hkdfSync("sha256", audit, "brein", INFO, 32))
const tokenOf = (key: Uint8Array, sequenceId: string, personId: string) =>
  hmacSha256(key, `unsubscribe\n${sequenceId}\n${personId}`).slice(0, 32)

/**
 * The unsubscribe links of sequence messages: `<BREIN_PUBLIC_URL>/u/<sequence>/<person>/<token>`, where the
 * token (128 bits of an HMAC of the sequence and person under a server key) proves the link was made here
 * for that person. Nothing is stored: a link is checked by making it again.
 */
export class UnsubscribeLinks extends Effect.Service<UnsubscribeLinks>()("brein/catalog/sequences/UnsubscribeLinks", {
  effect: Effect.gen(function* () {
    const audit = yield* AuditKey
    const publicUrl = yield* Effect.orDie(PublicUrl)
    const base = new URL(UNSUBSCRIBE_PREFIX.slice(1), publicUrl.href.replace(/\/?$/, "/")).href
    const key = yield* Effect.cached(Effect.flatMap(
      audit.forSigning,
      Option.match({
        onSome: (signing) => Effect.succeed(derived(Redacted.value(signing))),
        onNone: () => Effect.dieMessage("no key for unsubscribe links: this process holds no audit signing key")
      })
    ))

    /** The writer of links, for rendering (synchronous: a message is rendered in plain code). */
    const writer = Effect.fn("UnsubscribeLinks.writer")(function* () {
      const k = yield* key
      const write: UnsubscribeWriter = (sequenceId, personId) =>
        `${base}${encodeURIComponent(sequenceId)}/${encodeURIComponent(personId)}/${tokenOf(k, sequenceId, personId)}`
      return write
    })

    /** Whether a link's token is the one this server makes for that sequence and person. */
    const verify = Effect.fn("UnsubscribeLinks.verify")(function* (sequenceId: string, personId: string, token: string) {
      return TOKEN.test(token) && sameHex(token, tokenOf(yield* key, sequenceId, personId))
    })

    return { writer, verify } as const
  })
}) {}
