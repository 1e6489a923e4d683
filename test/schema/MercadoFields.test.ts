import { assert, describe, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { Day } from "../../schema/catalog/MercadoFields.ts"

const decodeDay = Schema.decodeUnknownEither(Day)

describe("Mercado's Day", () => {
  it("takes a real day", () => {
    assert.deepStrictEqual(decodeDay("2024-02-29"), Either.right("2024-02-29"))
  })

  // an impossible month or day made an invalid Date whose toISOString threw: a 500 in place of a 422
  it("refuses a day that does not exist, a month or day out of range included, as an input error", () => {
    for (const text of ["2025-02-30", "2025-13-45", "2025-02-32", "0000-00-00", "2025-00-10", "yesterday"]) {
      const decoded = decodeDay(text)
      assert.isTrue(Either.isLeft(decoded), text)
      if (Either.isLeft(decoded)) assert.include(ParseResult.TreeFormatter.formatErrorSync(decoded.left), "must be a date YYYY-MM-DD", text)
    }
  })
})
