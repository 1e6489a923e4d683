import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { CHILE_REGIONS, ChileRegion } from "../../../schema/geo/ChileRegions.ts"
import { MEXICO_STATES, MexicoState } from "../../../schema/geo/MexicoStates.ts"
import { Region } from "../../../schema/geo/Region.ts"
import { Rfc, rfcCheck, rfcMoral } from "../../../schema/tax/Rfc.ts"
import { TaxId } from "../../../schema/tax/TaxId.ts"

const decode = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknownEither(schema)
const right = <A, E>(either: Either.Either<A, E>) => Either.getOrThrowWith(either, (e) => new Error(String(e)))
const leftMessage = <A, E extends { readonly message: string }>(either: Either.Either<A, E>) =>
  Either.match(either, { onLeft: (e) => e.message, onRight: () => "" })

describe("geography", () => {
  it("Chile has 16 regions and Mexico 32 states, each code unique", () => {
    assert.strictEqual(new Set(CHILE_REGIONS.map((r) => r.code)).size, 16)
    assert.strictEqual(new Set(MEXICO_STATES.map((s) => s.code)).size, 32)
    assert.deepStrictEqual(MEXICO_STATES.map((s) => Number(s.inegi)), Array.from({ length: 32 }, (_, i) => i + 1))
  })

  it("a Mexican state decodes from its code, name with or without accents, INEGI number and common aliases", () => {
    const state = decode(MexicoState)
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["MX-JAL", "MX-JAL"],
      ["jal", "MX-JAL"],
      ["Jalisco", "MX-JAL"],
      ["CDMX", "MX-CMX"],
      ["Distrito Federal", "MX-CMX"],
      ["Ciudad de Mexico", "MX-CMX"],
      ["ciudad de méxico", "MX-CMX"],
      ["Edomex", "MX-MEX"],
      ["Estado de México", "MX-MEX"],
      ["Nuevo Leon", "MX-NLE"],
      ["NUEVO LEÓN", "MX-NLE"],
      ["Michoacan", "MX-MIC"],
      ["Yucatan", "MX-YUC"],
      ["14", "MX-JAL"],
      ["09", "MX-CMX"],
      ["Querétaro", "MX-QUE"]
    ]
    for (const [input, code] of cases) assert.strictEqual(right(state(input)), code, input)
  })

  it("an unknown state is refused with the list of what is accepted", () => {
    const message = leftMessage(decode(MexicoState)("Texas"))
    assert.include(message, "is not a state of Mexico")
    assert.include(message, "MX-JAL (Jalisco)")
    assert.include(message, "MX-CMX (Ciudad de México)")
    assert.isTrue(Either.isLeft(decode(MexicoState)("CL-RM")))
    assert.isTrue(Either.isLeft(decode(MexicoState)("33")))
  })

  it("a Chilean region decodes from its code, name or numeral; an unknown one is refused", () => {
    const region = decode(ChileRegion)
    assert.strictEqual(right(region("Metropolitana")), "CL-RM")
    assert.strictEqual(right(region("cl-rm")), "CL-RM")
    assert.strictEqual(right(region("Biobio")), "CL-BI")
    assert.strictEqual(right(region("Ñuble")), "CL-NB")
    assert.strictEqual(right(region("nuble")), "CL-NB")
    assert.strictEqual(right(region("VIII")), "CL-BI")
    assert.strictEqual(right(region("O'Higgins")), "CL-LI")
    assert.include(leftMessage(region("Mendoza")), "CL-RM (Región Metropolitana de Santiago)")
  })

  it("the combined region accepts both countries and keeps every alias to one place", () => {
    const region = decode(Region)
    assert.strictEqual(right(region("CDMX")), "MX-CMX")
    assert.strictEqual(right(region("Valparaiso")), "CL-VS")
    assert.isTrue(Either.isLeft(region("Atlantis")))
  })
})

describe("tax ids", () => {
  it("the RFC check character matches real RFCs", () => {
    for (const rfc of ["GFM010122DZ9", "&BC040317UN0", "JUNS6106155I6", "MAPS490702UMA", "OEMM600616LU0"]) {
      assert.strictEqual(rfcCheck(rfc.slice(0, -1)), rfc.slice(-1), rfc)
      assert.strictEqual(right(decode(Rfc)(rfc)), rfc)
    }
    assert.strictEqual(right(decode(Rfc)("gfm-010122-dz9")), "GFM010122DZ9")
  })

  it("an RFC with a wrong check character or shape is refused; the generic ones pass", () => {
    assert.isTrue(Either.isLeft(decode(Rfc)("GFM010122DZ8")))
    assert.isTrue(Either.isLeft(decode(Rfc)("GFM011322DZ9")))
    assert.isTrue(Either.isLeft(decode(Rfc)("GF010122DZ9")))
    assert.strictEqual(right(decode(Rfc)("XAXX010101000")), "XAXX010101000")
  })

  it("a generated moral RFC is 12 characters and valid", () => {
    const rfc = rfcMoral("ABC", { year: 2015, month: 3, day: 9 }, 77)
    assert.strictEqual(rfc.length, 12)
    assert.strictEqual(right(decode(Rfc)(rfc)), rfc)
  })

  it("a tax id is a valid RUT or a valid RFC", () => {
    assert.strictEqual(right(decode(TaxId)("76.123.456-0")), "76123456-0")
    assert.strictEqual(right(decode(TaxId)("GFM010122DZ9")), "GFM010122DZ9")
    assert.include(leftMessage(decode(TaxId)("76123456-7")), "valid mod-11 check digit")
  })
})
