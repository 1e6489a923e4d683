import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Schema } from "effect"
import { Port, PortConfig } from "../../schema/Port.ts"

const portFrom = (env: ReadonlyArray<readonly [string, string]>) =>
  PortConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(env))))

describe("Port", () => {
  it("is an integer from 1 to 65535", () => {
    for (const ok of [1, 80, 8787, 65535]) assert.isTrue(Schema.is(Port)(ok), String(ok))
    for (const bad of [0, -1, 65536, 99999, 1.5, Number.NaN]) assert.isFalse(Schema.is(Port)(bad), String(bad))
  })

  it.effect("PORT is 8787 when unset, and a number when it names a port", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* portFrom([]), 8787)
      assert.strictEqual(yield* portFrom([["PORT", "8080"]]), 8080)
    }))

  it.effect("a PORT that is not a port fails, naming PORT and the value", () =>
    Effect.gen(function* () {
      // and what a number parser reads as a number: hex, exponents, decimals
      for (const bad of ["abc", "99999", "0", "1.5", "80x", "", "0x1007", "1e3", "4103.0", "-80", "+80"]) {
        const error = yield* Effect.flip(portFrom([["PORT", bad]]))
        assert.include(String(error), `PORT must be an integer from 1 to 65535, not ${JSON.stringify(bad)}`, bad)
      }
    }))
})
