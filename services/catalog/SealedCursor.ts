import { Clock, Duration, Effect, Either, Redacted, Schema } from "effect"
import { CursorRejected } from "../../schema/Errors.ts"
import { hmacSha256, sameHex } from "../Crypto.ts"
import { CursorKey } from "./CursorKey.ts"

export const CURSOR_LIFE = Duration.minutes(30)
/**
 * How far ahead of this server's clock a cursor may be dated (another process's clock running fast):
 * past it the cursor's age cannot be known, and a cursor dated far ahead would live for as long.
 */
export const CLOCK_SKEW = Duration.minutes(1)

/** Where the next page starts: the last row's order key (a date, or null when ordered by id alone) and id. */
export const Position = Schema.Struct({ at: Schema.NullOr(Schema.String), id: Schema.String })
export type Position = typeof Position.Type

/**
 * What a cursor holds, and what it is checked against when it comes back. A search's cursor carries the
 * total its first page counted (and whether that was a lower bound); a cursor of a page without a count has none.
 */
const Sealed = Schema.Struct({
  position: Position,
  search: Schema.String,
  workspace: Schema.String,
  issuedAt: Schema.Int,
  dataset: Schema.String,
  total: Schema.optionalWith(Schema.Int, { exact: true }),
  lowerBound: Schema.optionalWith(Schema.Boolean, { exact: true })
})
export type Sealed = typeof Sealed.Type

/** The search a cursor must belong to: its tool and filters, the workspace asking, the data set loaded now. */
export interface Expected {
  readonly toolId: string
  readonly search: string
  readonly workspace: string
  readonly dataset: string
}

const decodeSealed = Schema.decodeUnknownEither(Schema.parseJson(Sealed))

/** Opaque cursors signed with HMAC-SHA256: `base64url(claims).hex(signature)`. */
export class SealedCursor extends Effect.Service<SealedCursor>()("brein/catalog/SealedCursor", {
  effect: Effect.gen(function* () {
    const key = Redacted.value(yield* CursorKey)
    const sign = (body: string) => hmacSha256(key, `brein/cursor/v1\n${body}`)

    const seal = Effect.fn("SealedCursor.seal")(function* (claims: Omit<Sealed, "issuedAt">) {
      const body = Buffer.from(JSON.stringify({ ...claims, issuedAt: yield* Clock.currentTimeMillis }), "utf8").toString("base64url")
      return `${body}.${sign(body)}`
    })

    /** The position (and any total) of a cursor issued to this workspace for this search, within its life and data set. */
    const open = Effect.fn("SealedCursor.open")(function* (cursor: string, expected: Expected) {
      const [body = "", signature = "", ...rest] = cursor.split(".")
      const refuse = (reason: CursorRejected["reason"]) => Effect.fail(CursorRejected.of(reason, expected.toolId))
      if (rest.length > 0 || !/^[0-9a-f]{64}$/.test(signature) || !sameHex(signature, sign(body))) return yield* refuse("tampered")
      const claims = decodeSealed(Buffer.from(body, "base64url").toString("utf8"))
      if (Either.isLeft(claims)) return yield* refuse("tampered")
      const sealed = claims.right
      if (sealed.workspace !== expected.workspace) return yield* refuse("foreign_workspace")
      if (sealed.search !== expected.search) return yield* refuse("other_search")
      const age = (yield* Clock.currentTimeMillis) - sealed.issuedAt
      const unknowable = age < -Duration.toMillis(CLOCK_SKEW)
      if (unknowable || age > Duration.toMillis(CURSOR_LIFE) || sealed.dataset !== expected.dataset) return yield* refuse("stale")
      return sealed
    })

    return { seal, open }
  })
}) {}
