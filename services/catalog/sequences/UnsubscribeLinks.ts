import { Array as Arr, Config, Effect, Option, Redacted } from "effect"
import { hkdfSync } from "node:crypto"
import { UNSUBSCRIBE_PREFIX } from "../../../schema/http/Unsubscribe.ts"
import { AuditKey } from "../../audit/AuditKey.ts"
import { base64Key, hmacSha256, sameHex } from "../../Crypto.ts"
import { PublicUrl } from "../../humans/PublicUrl.ts"

/** Writes a recipient's unsubscribe link: the same for the same sequence and person, in the preview and in what is sent. */
export type UnsubscribeWriter = (sequenceId: string, personId: string) => string

const INFO = "brein/sequences/unsubscribe"
const TOKEN = /^[0-9a-f]{32}$/

// A key of its own, derived one way from the key it is given: a link never reveals or reuses that key.
const derived = (key: Uint8Array) => new Uint8Array(hkdfSync("sha256", key, "brein", INFO, 32))
const tokenOf = (key: Uint8Array, sequenceId: string, personId: string) =>
  hmacSha256(key, `unsubscribe\n${sequenceId}\n${personId}`).slice(0, 32)

/**
 * The unsubscribe links of sequence messages: `<BREIN_PUBLIC_URL>/u/<sequence>/<person>/<token>`, where the
 * token (128 bits of an HMAC of the sequence and person under a server key) proves the link was made here
 * for that person. Nothing is stored: a link is checked by making it again.
 *
 * The key comes from BREIN_UNSUBSCRIBE_KEY when it is set, else from the audit key. A link stays good for as
 * long as the message that carries it may be read, so the key must outlive a rotation of the audit key: with
 * BREIN_UNSUBSCRIBE_KEY set, links are made with it, and those made before from the audit key are still
 * accepted while that audit key is the process's.
 */
export class UnsubscribeLinks extends Effect.Service<UnsubscribeLinks>()("brein/catalog/sequences/UnsubscribeLinks", {
  effect: Effect.gen(function* () {
    const audit = yield* AuditKey
    const publicUrl = yield* Effect.orDie(PublicUrl)
    const base = new URL(UNSUBSCRIBE_PREFIX.slice(1), publicUrl.href.replace(/\/?$/, "/")).href
    const given = yield* Effect.orDie(Config.option(Config.redacted("BREIN_UNSUBSCRIBE_KEY")))
    const own = Option.isSome(given)
      ? Option.some(derived(yield* base64Key("BREIN_UNSUBSCRIBE_KEY", Redacted.value(given.value))))
      : Option.none()
    const fromAudit = Effect.map(audit.forSigning, Option.map((signing) => derived(Redacted.value(signing))))
    // The first key writes; every key listed verifies.
    const keys = yield* Effect.cached(Effect.flatMap(fromAudit, (audited) => {
      const all = [...Option.toArray(own), ...Option.toArray(audited)]
      return Arr.isNonEmptyReadonlyArray(all)
        ? Effect.succeed(all)
        : Effect.dieMessage("no key for unsubscribe links: set BREIN_UNSUBSCRIBE_KEY, or run a process that holds the audit signing key")
    }))

    /** The writer of links, for rendering (synchronous: a message is rendered in plain code). */
    const writer = Effect.fn("UnsubscribeLinks.writer")(function* () {
      const [k] = yield* keys
      const write: UnsubscribeWriter = (sequenceId, personId) =>
        `${base}${encodeURIComponent(sequenceId)}/${encodeURIComponent(personId)}/${tokenOf(k, sequenceId, personId)}`
      return write
    })

    /** Whether a link's token is one this server makes, or made, for that sequence and person. */
    const verify = Effect.fn("UnsubscribeLinks.verify")(function* (sequenceId: string, personId: string, token: string) {
      if (!TOKEN.test(token)) return false
      return (yield* keys).some((k) => sameHex(token, tokenOf(k, sequenceId, personId)))
    })

    return { writer, verify } as const
  })
}) {}
