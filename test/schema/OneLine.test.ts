import { assert, describe, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { hasControlCharacter, oneLine } from "../../schema/OneLine.ts"

describe("OneLine", () => {
  it("a control character of either range (C0, DEL, C1) is not one line of text; letters, spaces and symbols are", () => {
    for (const bad of ["a\tb", "a\nb", "a\r\nb", "\u0000", "a\u007fb", "a\u0085b", "a\u009fb"]) {
      assert.isTrue(hasControlCharacter(bad), JSON.stringify(bad))
    }
    for (const ok of ["", "Ventas Acme", "Ñuñoa — año 2024 ✓", "a\u00a0b", "😀"]) {
      assert.isFalse(hasControlCharacter(ok), JSON.stringify(ok))
    }
  })

  it("the filter refuses such text with the message it is given", () => {
    const Line = Schema.String.pipe(oneLine("must be one line"))
    assert.strictEqual(Schema.decodeUnknownSync(Line)("one line"), "one line")
    const refused = Schema.decodeUnknownEither(Line)("two\nlines")
    assert.isTrue(Either.isLeft(refused))
    if (Either.isLeft(refused)) assert.strictEqual(ParseResult.ArrayFormatter.formatErrorSync(refused.left)[0]?.message, "must be one line")
  })
})
