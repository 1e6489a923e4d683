import { Effect, Option, Schema } from "effect"
import { Fecha } from "../../../schema/upstream/Fecha.ts"
import type { Position } from "../../catalog/SealedCursor.ts"

/** Where the previous page of movements ended: the keyset (post_date, id) of its last row. */
const MovimientoCursor = Schema.Struct({ postDate: Fecha, id: Schema.Int })
export type MovimientoCursor = typeof MovimientoCursor.Type

const FromPosition = Schema.Struct({ at: Fecha, id: Schema.compose(Schema.NumberFromString, Schema.Int) })
const decodePosition = Schema.decodeUnknown(FromPosition)

/** The sealed position of a movement keyset. */
export const positionOf = (cursor: MovimientoCursor): Position => ({ at: cursor.postDate, id: String(cursor.id) })

/** The keyset a sealed position holds (the cursor was opened, so it was sealed here from a keyset). */
export const movimientoAt = Effect.fn("MovimientoCursor.at")(function* (position: Position | undefined) {
  if (position === undefined) return Option.none<MovimientoCursor>()
  const { at, id } = yield* Effect.orDie(decodePosition(position))
  return Option.some({ postDate: at, id })
})
