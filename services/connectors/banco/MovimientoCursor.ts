import { Effect, Option, Schema } from "effect"
import { InvalidInput } from "../../../schema/Errors.ts"
import { Fecha } from "../../../schema/upstream/Fecha.ts"

/** Where the previous page of movements ended: the keyset (post_date, id) of its last row. */
const MovimientoCursor = Schema.Struct({ postDate: Fecha, id: Schema.Int })
export type MovimientoCursor = typeof MovimientoCursor.Type

const CursorJson = Schema.parseJson(MovimientoCursor)
const decodeJson = Schema.decodeUnknown(CursorJson)
const encodeJson = Schema.encodeSync(CursorJson)

export const encodeCursor = (cursor: MovimientoCursor) => Buffer.from(encodeJson(cursor), "utf8").toString("base64url")

export const decodeCursor = Effect.fn("MovimientoCursor.decode")(function* (cursor: string | undefined) {
  if (cursor === undefined) return Option.none<MovimientoCursor>()
  return Option.some(
    yield* decodeJson(Buffer.from(cursor, "base64url").toString("utf8")).pipe(
      Effect.mapError(() =>
        new InvalidInput({
          message: "input.cursor: not a cursor of this tool",
          issues: [{ path: "input.cursor", message: "not a cursor of this tool" }]
        })
      )
    )
  )
})
