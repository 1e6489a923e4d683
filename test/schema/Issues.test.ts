import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { Esperar } from "../../schema/connectors/Sync.ts"
import { issuesOf, summary } from "../../schema/Issues.ts"

const issues = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => {
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(value)
  return Either.isLeft(decoded) ? issuesOf(decoded.left, "input") : []
}

describe("readable issues", () => {
  it("say bounds as sentences about the value, and describe long values by their size", () => {
    const Input = Schema.Struct({
      esperar: Schema.optional(Esperar),
      perspectiva: Schema.optional(Schema.Literal("ventas", "compras")),
      nota: Schema.optional(Schema.String.pipe(Schema.maxLength(10))),
      n: Schema.optional(Schema.Number)
    })
    assert.deepStrictEqual(issues(Input, { esperar: 60 }), [{ path: "input.esperar", message: "must be between 0 and 55 seconds, got 60" }])
    assert.deepStrictEqual(issues(Input, { esperar: 1.5 }), [{ path: "input.esperar", message: "must be an integer, got 1.5" }])
    assert.deepStrictEqual(issues(Input, { perspectiva: "x".repeat(5000) }), [
      { path: "input.perspectiva", message: `must be "ventas" or "compras", got a string of 5,000 characters` }
    ])
    assert.deepStrictEqual(issues(Input, { nota: "y".repeat(12) }), [{ path: "input.nota", message: "must be at most 10 characters, got 12" }])
    assert.deepStrictEqual(issues(Input, { n: "z".repeat(100_000) }), [{ path: "input.n", message: "must be number, got a string of 100,000 characters" }])
    assert.deepStrictEqual(issues(Input, { extra: 1 }), [{ path: "input.extra", message: "is not a field this input accepts" }])
    assert.strictEqual(summary(issues(Input, { esperar: 60, n: "1" })), "input.esperar must be between 0 and 55 seconds, got 60; input.n must be number, got \"1\"")
  })
})
