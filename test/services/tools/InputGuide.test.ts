import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import type { InvalidInput } from "../../../schema/Errors.ts"
import { action } from "../../../services/tools/Tool.ts"
import { pure } from "../pipeline/Fixtures.ts"

const toolWith = (input: Schema.Schema.AnyNoContext) =>
  action({
    id: "guide.input.check",
    family: "guide",
    label: "guide",
    description: "a tool whose input is refused",
    plan: "free",
    hints: pure,
    cost: { kind: "free" },
    level: 0,
    stages: [],
    input,
    output: Schema.Struct({}),
    handler: () => Effect.succeed({})
  })

const Search = Schema.Struct({
  q: Schema.optional(Schema.String),
  country: Schema.optional(Schema.String),
  employees_min: Schema.optional(Schema.Number),
  employees_max: Schema.optional(Schema.Number),
  limit: Schema.optional(Schema.Number),
  periodo: Schema.String
})

/** The refusal of `raw`: its hint, or none; its issues as the decoder wrote them. */
const refusal = (input: Schema.Schema.AnyNoContext, raw: unknown): InvalidInput => {
  const prepared = toolWith(input).prepare(raw)
  if (Either.isRight(prepared)) throw new Error(`${JSON.stringify(raw)} was accepted`)
  return prepared.left
}

describe("the hint of an input refused for a field it does not define", () => {
  it("names the field a misspelt one meant, beside every field the tool takes", () => {
    const error = refusal(Search, { periodo: "2026-01", limt: 5 })
    assert.deepStrictEqual(error.issues, [{ path: "input.limt", message: "is not a field this input accepts" }])
    assert.strictEqual(
      error.hint,
      "Did you mean limit (not limt)? guide.input.check takes: q, country, employees_min, employees_max, limit, periodo (required)."
    )
  })

  it("reads a name written in another case or style, and a shortening, as the field", () => {
    assert.include(refusal(Search, { periodo: "2026-01", employeesMin: 5 }).hint, "Did you mean employees_min (not employeesMin)?")
    assert.include(refusal(Search, { periodo: "2026-01", query: "x" }).hint, "Did you mean q (not query)?")
    assert.include(refusal(Search, { periodo: "2026-01", periodos: "x" }).hint, "Did you mean periodo (not periodos)?")
  })

  it("guesses nothing where two fields are as near, or none is, and still names the fields", () => {
    const ambiguous = refusal(Search, { periodo: "2026-01", employees: 5 })
    assert.strictEqual(
      ambiguous.hint,
      "guide.input.check takes: q, country, employees_min, employees_max, limit, periodo (required)."
    )
    assert.notInclude(refusal(Search, { periodo: "2026-01", zzz: 1 }).hint, "Did you mean")
  })

  it("answers each misspelt field, with the others' issues left as they were", () => {
    const error = refusal(Search, { limt: "five", countyr: "CL" })
    assert.deepStrictEqual(error.issues.map((i) => i.path).sort(), ["input.countyr", "input.limt", "input.periodo"])
    assert.include(error.hint, "Did you mean limit (not limt), country (not countyr)?")
  })

  it("lists the fields only when many unknown ones were sent, and clips a long name", () => {
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`limit${i}`, i]))
    assert.notInclude(refusal(Search, { periodo: "2026-01", ...many }).hint, "Did you mean")
    // past the count the schema never sees: refused by it, the first 20 named, the fields listed still
    const flood = refusal(Search, Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`limit${i}`, i])))
    assert.strictEqual(flood.issues.length, 20)
    assert.deepStrictEqual(flood.issues[0], { path: "input.limit0", message: "is not a field this input accepts" })
    assert.match(flood.message, /^input\.limit0 is not a field this input accepts; .*; and 497 more$/)
    assert.strictEqual(
      flood.hint,
      "guide.input.check takes: q, country, employees_min, employees_max, limit, periodo (required)."
    )
    const long = `countr${"y".repeat(80)}`
    assert.notInclude(refusal(Search, { periodo: "2026-01", [long]: 1 }).hint, long)
  })

  it("names a long unknown field alike among a few unknown fields and among a flood of them", () => {
    const long = `x${"y".repeat(99)}`
    const others = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`z${i}`, i]))
    // 20 unknown fields reach the schema; 21 are refused by their count before it: the name reads the same
    const few = refusal(Search, { periodo: "2026-01", [long]: 1, ...others(19) })
    const flood = refusal(Search, { periodo: "2026-01", [long]: 1, ...others(20) })
    assert.match(few.message, /; and 17 more$/)
    assert.match(flood.message, /; and 18 more$/)
    assert.deepInclude(few.issues, { path: `input.${long}`, message: "is not a field this input accepts" })
    assert.deepStrictEqual(flood.issues[0], { path: `input.${long}`, message: "is not a field this input accepts" })
    const longer = "w".repeat(300)
    const cut = refusal(Search, { periodo: "2026-01", [longer]: 1, ...others(20) }).issues[0]?.path ?? ""
    assert.strictEqual(cut.length, 200)
    assert.isTrue(cut.startsWith("input.www") && cut.endsWith("…"))
    assert.include(refusal(Search, { periodo: "2026-01", [longer]: 1 }).issues.map((i) => i.path), cut)
  })

  it("says a tool without fields takes an empty input", () => {
    assert.strictEqual(
      refusal(Schema.Struct({}), { period: "today" }).hint,
      "guide.input.check takes no fields: send an empty input ({}), or none."
    )
  })

  it("adds nothing to a refusal that is not about an unknown field, nor to one nested below the top", () => {
    assert.isUndefined(refusal(Search, { periodo: 7 }).hint)
    assert.isUndefined(refusal(Search, ["periodo"]).hint)
    const Nested = Schema.Struct({ filter: Schema.Struct({ country: Schema.String }) })
    const nested = refusal(Nested, { filter: { countyr: "CL" } })
    assert.deepInclude(nested.issues, { path: "input.filter.countyr", message: "is not a field this input accepts" })
    assert.isUndefined(nested.hint)
  })

  it("counts the budget fields of a tool that costs credits among the fields it takes", () => {
    // a struct with the budget fields, as creditsAction extends a tool's input
    const Priced = Schema.extend(Search, Schema.Struct({ confirm: Schema.optional(Schema.Boolean) }))
    assert.include(refusal(Priced, { periodo: "2026-01", confrim: true }).hint, "Did you mean confirm (not confrim)?")
  })
})
