import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { GrantReason } from "../../schema/budget/Budget.ts"
import { Credits } from "../../services/budget/Credits.ts"

// Compiled, never run: the calls below are what the type checker accepts or refuses.
export const checked = Effect.flatMap(Credits, (credits) => credits.grant("ws_x", "free", 1, GrantReason.make("pilot")))

// @ts-expect-error a reason that did not go through GrantReason (a blank one, say) is not taken
export const unchecked = Effect.flatMap(Credits, (credits) => credits.grant("ws_x", "free", 1, " "))

describe("a credit grant's reason", () => {
  it("is trimmed and must not be blank: GrantReason is the one way to make one", () => {
    assert.deepStrictEqual(
      Schema.decodeUnknownEither(GrantReason)("  pilot: first month "),
      Either.right(GrantReason.make("pilot: first month"))
    )
    for (const blank of ["", "   ", "\t\n"]) {
      assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(GrantReason)(blank)), JSON.stringify(blank))
    }
    assert.throws(() => GrantReason.make(""), /must not be blank/)
  })
})
