import { ParseResult, Schema } from "effect"

// The letters unaccent spells out (PostgreSQL's brein_fold, which the stored names are folded by) that lose no mark in NFD.
const SPELLED: Record<string, string> = {
  ß: "ss",
  ẞ: "ss",
  æ: "ae",
  Æ: "ae",
  œ: "oe",
  Œ: "oe",
  ø: "o",
  Ø: "o",
  ł: "l",
  Ł: "l",
  đ: "d",
  Đ: "d",
  ð: "d",
  Ð: "d",
  þ: "th",
  Þ: "th",
  ħ: "h",
  Ħ: "h",
  ı: "i"
}
const SPELLED_LETTERS = new RegExp(`[${Object.keys(SPELLED).join("")}]`, "g")

/**
 * Lower case, no accents, no punctuation, single spaces: "Nuevo León" and "nuevo-leon" fold alike, as do
 * "Straße" and "strasse" (as PostgreSQL's unaccent folds them). Letters of other scripts stay, as words.
 */
export const fold = (text: string): string =>
  text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").replace(SPELLED_LETTERS, (letter) => SPELLED[letter] ?? letter)
    .toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()

export interface Place<Code extends string> {
  readonly code: Code
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  /** INEGI's two-digit number of a Mexican state: "14" and "14" without its zero decode too. */
  readonly inegi?: string
}

/**
 * A code of a closed list, decoded from the code itself (any case), the name with or without accents,
 * or a common alias; anything else is refused with the list of codes accepted.
 */
export const guardedPlace = <const Code extends string>(
  places: readonly [Place<Code>, ...ReadonlyArray<Place<Code>>],
  what: string,
  /** What the refusal says is accepted, when the whole list is too long for one message. */
  short?: string
) => {
  const codes = places.map((p) => p.code) as unknown as readonly [Code, ...ReadonlyArray<Code>]
  const byKey = new Map<string, Code>()
  for (const place of places) {
    const numbers = place.inegi === undefined ? [] : [place.inegi, String(Number(place.inegi))]
    for (const key of [place.code, place.code.slice(3), place.name, ...place.aliases, ...numbers]) byKey.set(fold(key), place.code)
  }
  const accepted = `${what}: one of ${
    places.map((p) => `${p.code} (${p.name})`).join(", ")
  }; names without accents and common aliases work too`
  const Code = Schema.Literal(...codes)
  const schema = Schema.transformOrFail(Schema.String, Code, {
    strict: true,
    decode: (text, _, ast) => {
      const code = byKey.get(fold(text))
      return code === undefined
        ? ParseResult.fail(
          new ParseResult.Type(
            ast,
            text,
            short === undefined ? `${JSON.stringify(text.slice(0, 40))} is not ${accepted}` : `unknown ${short}`
          )
        )
        : ParseResult.succeed(code)
    },
    encode: ParseResult.succeed
  })
  return { Code, schema, byKey, codes, accepted }
}
