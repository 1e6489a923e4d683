import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { refused } from "./Refused.ts"

describe("refused", () => {
  it.effect("gives the error of a call that fails", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* refused(Effect.fail("nope"), "the call"), "nope")
    }))

  it.effect("a call that answers dies at once with a short message naming it, not with the answer", () =>
    Effect.gen(function* () {
      const answer = { data: { rows: Array.from({ length: 1000 }, (_, i) => ({ i })) } }
      const exit = yield* Effect.exit(refused(Effect.succeed(answer), "market_aggregate_awards"))
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
      const message = Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""
      assert.include(message, "market_aggregate_awards answered instead of failing")
      assert.isBelow(message.split("\n")[0]?.length ?? 0, 600)
    }))
})
