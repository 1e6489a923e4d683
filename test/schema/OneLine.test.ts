import { assert, describe, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import { hasControlCharacter, oneLine, printable } from "../../schema/OneLine.ts"

describe("OneLine", () => {
  it("a control character of either range (C0, DEL, C1) is not one line of text; letters, spaces and symbols are", () => {
    for (
      const bad of [
        "a\tb",
        "a\nb",
        "a\r\nb",
        "\u0000",
        "a\u007fb",
        "a\u0085b",
        "a\u009fb",
        "a\u2028b",
        "a\u2029",
        "txt\u202eexe",
        "\u2066a",
        "\u200f"
      ]
    ) {
      assert.isTrue(hasControlCharacter(bad), JSON.stringify(bad))
    }
    for (const ok of ["", "Ventas Acme", "Ñuñoa — año 2024 ✓", "a\u00a0b", "😀", "👨\u200d👩\u200d👧", "שלום", "مرحبا"]) {
      assert.isFalse(hasControlCharacter(ok), JSON.stringify(ok))
    }
  })

  it("printable writes each such character as its escape, and leaves the rest as it is", () => {
    assert.strictEqual(printable("a\u0001b\u007f\u0085 \u202e\u2028 ñ😀"), "a\\u0001b\\u007f\\u0085 \\u202e\\u2028 ñ😀")
  })

  it("the filter refuses such text with the message it is given", () => {
    const Line = Schema.String.pipe(oneLine("must be one line"))
    assert.strictEqual(Schema.decodeUnknownSync(Line)("one line"), "one line")
    const refused = Schema.decodeUnknownEither(Line)("two\nlines")
    assert.isTrue(Either.isLeft(refused))
    if (Either.isLeft(refused)) assert.strictEqual(ParseResult.ArrayFormatter.formatErrorSync(refused.left)[0]?.message, "must be one line")
  })
})
