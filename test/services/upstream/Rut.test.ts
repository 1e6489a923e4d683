import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { formatRut, Rut, rutDv, rutFromBody } from "../../../schema/upstream/Rut.ts"

const decode = Schema.decodeUnknownEither(Rut)

describe("Rut", () => {
  it("computes the mod-11 check digit of domain.md §1.5", () => {
    const table: ReadonlyArray<readonly [number, string]> = [
      [77123456, "9"],
      [76543210, "3"],
      [12345678, "5"],
      [11111111, "1"],
      [76123456, "0"]
    ]
    for (const [body, dv] of table) assert.strictEqual(rutDv(body), dv, `body ${body}`)
  })

  it("yields K when 11 - (sum mod 11) is 10", () => {
    assert.strictEqual(rutDv(10000013), "K")
    assert.strictEqual(rutFromBody(10000013), "10000013-K")
  })

  it.effect("decodes canonical and dotted display forms to the canonical form", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* Schema.decodeUnknown(Rut)("77123456-9"), "77123456-9")
      assert.strictEqual(yield* Schema.decodeUnknown(Rut)("77.123.456-9"), "77123456-9")
      assert.strictEqual(yield* Schema.decodeUnknown(Rut)(" 10.000.013-k "), "10000013-K")
      assert.strictEqual(yield* Schema.decodeUnknown(Rut)("123456785"), "12345678-5")
      assert.strictEqual(yield* Schema.encode(Rut)(rutFromBody(76543210)), "76543210-3")
    }))

  it("rejects a wrong check digit, including emisso's examples", () => {
    for (const bad of ["76123456-7", "12345678-9", "77123456-0", "abc", "", "-5", "123456789-0"]) {
      assert.isTrue(Either.isLeft(decode(bad)), bad)
    }
  })

  it("formats the display form with dots", () => {
    assert.strictEqual(formatRut("77123456-9"), "77.123.456-9")
    assert.strictEqual(formatRut("5126663-3"), "5.126.663-3")
    assert.strictEqual(formatRut("10000013-K"), "10.000.013-K")
  })
})
