import { HttpApiError } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Esperar, Limit } from "../../schema/connectors/Sync.ts"
import { InvalidInput } from "../../schema/Errors.ts"
import { issuesIn, issuesOf, MAX_ISSUES, summary } from "../../schema/Issues.ts"
import { action } from "../../services/tools/Tool.ts"

const issues = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => {
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(value)
  return Either.isLeft(decoded) ? issuesOf(decoded.left, "input").issues : []
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
    // out of the range is said first, though 1e300 is no safe integer either: its size is what is wrong with it
    assert.deepStrictEqual(issues(Input, { esperar: 1e300 }), [{
      path: "input.esperar",
      message: "must be between 0 and 55 seconds, got 1e+300"
    }])
    const Page = Schema.Struct({
      limit: Schema.optional(Limit),
      count: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 200))),
      top: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1), Schema.lessThanOrEqualTo(50)))
    })
    assert.deepStrictEqual(issues(Page, { limit: 1e300, count: "-1e300", top: 1e300 }), [
      { path: "input.limit", message: "must be between 1 and 500, got 1e+300" },
      { path: "input.count", message: "must be between 1 and 200, got -1e+300" },
      { path: "input.top", message: "must be at most 50, got 1e+300" }
    ])
    assert.deepStrictEqual(issues(Page, { limit: 1.5, count: "2.5", top: -1e300 }), [
      { path: "input.limit", message: "must be an integer, got 1.5" },
      { path: "input.count", message: "must be an integer, got 2.5" },
      { path: "input.top", message: "must be at least 1, got -1e+300" }
    ])
    assert.deepStrictEqual(issues(Input, { perspectiva: "x".repeat(5000) }), [
      { path: "input.perspectiva", message: `must be "ventas" or "compras", got a string of 5,000 characters` }
    ])
    assert.deepStrictEqual(issues(Input, { nota: "y".repeat(12) }), [{
      path: "input.nota",
      message: "must be at most 10 characters, got 12"
    }])
    const One = Schema.Struct({
      title: Schema.String.pipe(Schema.minLength(1)),
      code: Schema.String.pipe(Schema.maxLength(1)),
      ids: Schema.Array(Schema.String).pipe(Schema.minItems(1)),
      pick: Schema.Array(Schema.String).pipe(Schema.maxItems(1))
    })
    assert.deepStrictEqual(issues(One, { title: "", code: "ab", ids: [], pick: ["a", "b"] }), [
      { path: "input.title", message: "must be at least 1 character, got 0" },
      { path: "input.code", message: "must be at most 1 character, got 2" },
      { path: "input.ids", message: "must have at least 1 item, got 0" },
      { path: "input.pick", message: "must have at most 1 item, got 2" }
    ])
    // a bound on what a transformation made of the input is said of that, not of the input as sent
    const Transformed = Schema.Struct({
      name: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(5)),
      count: Schema.NumberFromString.pipe(Schema.int())
    })
    assert.deepStrictEqual(issues(Transformed, { name: "   ", count: "1.5" }), [
      { path: "input.name", message: "must be at least 1 character, got 0" },
      { path: "input.count", message: "must be an integer, got 1.5" }
    ])
    assert.deepStrictEqual(issues(Transformed, { name: `  ${"x".repeat(6)}  `, count: "2" }), [
      { path: "input.name", message: "must be at most 5 characters, got 6" }
    ])
    assert.deepStrictEqual(issues(Input, { n: "z".repeat(100_000) }), [{
      path: "input.n",
      message: "must be a number, got a string of 100,000 characters"
    }])
    assert.deepStrictEqual(issues(Input, { extra: 1 }), [{ path: "input.extra", message: "is not a field this input accepts" }])
    assert.strictEqual(
      summary(issues(Input, { esperar: 60, n: "1" })),
      "input.esperar must be between 0 and 55 seconds, got 60; input.n must be a number, got \"1\""
    )
  })

  it("keep only the start and the size of a long value a schema's own message quotes, and clip what it interpolates bare", () => {
    const zone = (s: string) => s.length < 10
    const Input = Schema.Struct({
      tz: Schema.optional(
        Schema.String.pipe(Schema.filter(zone, { message: (issue) => `must be a zone, got ${JSON.stringify(issue.actual)}` }))
      ),
      at: Schema.optional(Schema.String.pipe(Schema.filter(zone, { message: (issue) => `"${String(issue.actual)}" is not a zone` }))),
      bare: Schema.optional(Schema.String.pipe(Schema.filter(zone, { message: (issue) => `must be a zone, got ${String(issue.actual)}` })))
    })
    const long = "z".repeat(900_000)
    assert.deepStrictEqual(issues(Input, { tz: long, at: long }), [
      { path: "input.tz", message: `must be a zone, got "${"z".repeat(19)}…" (900,000 characters)` },
      { path: "input.at", message: `"${"z".repeat(19)}…" (900,000 characters) is not a zone` }
    ])
    assert.deepStrictEqual(issues(Input, { tz: "Mars/Olympus" }), [{ path: "input.tz", message: `must be a zone, got "Mars/Olympus"` }])
    const [bare] = issues(Input, { bare: long })
    assert.isBelow(bare?.message.length ?? Infinity, 500)
    assert.match(bare?.message ?? "", /^must be a zone, got z+…$/)
  })

  it("name the kinds of value as JSON has them, not by the schema's internals", () => {
    const Input = Schema.Struct({
      flag: Schema.optional(Schema.Boolean),
      tags: Schema.optional(Schema.Array(Schema.String)),
      pair: Schema.optional(Schema.Tuple(Schema.String, Schema.Number)),
      nested: Schema.optional(Schema.Struct({ a: Schema.String }))
    })
    assert.deepStrictEqual(issues(Input, { flag: "yes", tags: "a", pair: 3, nested: [] }), [
      { path: "input.flag", message: "must be a boolean, got \"yes\"" },
      { path: "input.tags", message: "must be an array, got \"a\"" },
      { path: "input.pair", message: "must be an array, got 3" },
      { path: "input.nested", message: "must be a JSON object, got an array" }
    ])
    assert.deepStrictEqual(issues(Schema.encodedSchema(Input), null), [{ path: "input", message: "must be a JSON object, got null" }])
  })

  it("never echo the value of a field named like a secret, in any issue or the summary", () => {
    const Input = Schema.Struct({
      credentials: Schema.Struct({ rut: Schema.String, clave: Schema.String.pipe(Schema.minLength(4)) }),
      Password: Schema.optional(Schema.Number),
      access_token: Schema.optional(Schema.Literal("a", "b")),
      clientSecret: Schema.optional(Schema.Struct({ value: Schema.String }))
    })
    const found = issues(Input, {
      credentials: { rut: 1, clave: 918273645 },
      Password: "hunter2-very-secret",
      access_token: "tok-4711",
      clientSecret: { value: 5551234 }
    })
    const text = JSON.stringify(found) + summary(found)
    for (const secret of ["918273645", "hunter2", "4711", "5551234"]) assert.notInclude(text, secret)
    assert.deepInclude(found, { path: "input.credentials.clave", message: "must be a string (the value sent is not shown)" })
    assert.deepInclude(found, { path: "input.credentials.rut", message: "must be a string, got 1" })
  })

  it("format the first issues only and count the rest", () => {
    const Input = Schema.Struct({ n: Schema.Number })
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]))
    const decoded = Schema.decodeUnknownEither(Input, { errors: "all", onExcessProperty: "error" })(wide)
    assert.isTrue(Either.isLeft(decoded))
    if (Either.isLeft(decoded)) {
      const { issues: first, total } = issuesOf(decoded.left, "input")
      assert.isAtMost(first.length, MAX_ISSUES * 4)
      assert.strictEqual(total, 10_001)
    }
  })

  it.effect("count what they list: a field's alternatives and an optional field's \"or undefined\" are one issue, read or not", () =>
    Effect.gen(function* () {
      const decode = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
        Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(value).pipe(Effect.flip)
      const Four = Schema.Struct({ a: Schema.String, b: Schema.String, c: Schema.String, d: Schema.optional(Schema.String) })
      const four = yield* decode(Four, { a: 1, b: 1, c: 1, d: 1 })
      // as an HttpApi route reports it: d's "or undefined" is a fifth issue in its list
      const formatted = yield* HttpApiError.HttpApiDecodeError.fromParseError(four)
      assert.lengthOf(formatted.issues, 5)
      for (const { issues, total } of [issuesIn(formatted.issues, ""), issuesOf(four, "")]) {
        const refused = InvalidInput.of(issues, total)
        assert.lengthOf(refused.issues, 4)
        assert.strictEqual(refused.message, "a must be a string, got 1; b must be a string, got 1; c must be a string, got 1; and 1 more")
      }
      // past the issues read (MAX_ISSUES * 4), the rest are counted as they would be listed: one a field
      const Wide = Schema.Struct(
        Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, Schema.optional(Schema.Literal("x", "y"))]))
      )
      const wide = yield* decode(Wide, Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, 1])))
      const wideList = yield* HttpApiError.HttpApiDecodeError.fromParseError(wide)
      assert.isAbove(wideList.issues.length, MAX_ISSUES * 4)
      for (const { issues, total } of [issuesIn(wideList.issues, "input"), issuesOf(wide, "input")]) {
        assert.strictEqual(total, 60)
        assert.deepStrictEqual(issues[0], { path: "input.f0", message: "must be \"x\" or \"y\", got 1" })
        assert.match(InvalidInput.of(issues, total).message, /; and 57 more$/)
      }
    }))
})

describe("a tool's input with many unknown fields", () => {
  it.effect("is refused by a count, without the schema decoding any field", () =>
    Effect.gen(function* () {
      let checked = 0
      const tool = action({
        id: "wide.input.check",
        family: "wide",
        label: "Wide",
        description: "Counts how often its schema runs",
        plan: "free",
        hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
        cost: { kind: "free" },
        level: 0,
        stages: [],
        input: Schema.Struct({ n: Schema.Number.pipe(Schema.filter(() => (checked++, true))) }),
        output: Schema.Struct({}),
        handler: () => Effect.succeed({})
      })
      const wide = { n: 1, ...Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i])) }
      const error = yield* Effect.flip(tool.prepare(wide))
      assert.strictEqual(checked, 0, "the schema never ran")
      assert.strictEqual(error.issues.length, MAX_ISSUES)
      assert.match(error.message, /; and 59,997 more$/)
      yield* tool.prepare({ n: 1, extra: 2 }).pipe(Effect.flip)
      assert.strictEqual(checked, 1, "a few unknown fields are reported by the schema, with the others")
    }))
})
