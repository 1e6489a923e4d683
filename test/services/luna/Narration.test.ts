import { assert, describe, it } from "@effect/vitest"
import { figuresOf } from "../../../services/luna/anchors/Figures.ts"
import { harvest, NON_CITABLE } from "../../../services/luna/anchors/Harvest.ts"
import { NOT_FIGURES } from "../../../services/luna/anchors/NotFigures.ts"
import { stripRefTokens } from "../../../services/luna/anchors/RefTokens.ts"
import { anchoredOnly, checkAnchors } from "../../../services/luna/anchors/Validate.ts"
import { aggregate, all, kpi, search } from "./Results.ts"

describe("stripRefTokens", () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["Hay 3 empresas [[ref:r1]].", "Hay 3 empresas."],
    ["Hay 3 [[ref:r1]] empresas.", "Hay 3 empresas."],
    ["Hay 3 [[ref:r1]] [[ref:r2]] , dijo.", "Hay 3, dijo."],
    ["Suman $59 M [[ref:list:x@2026-01-01T00:00:00.000Z]]; el resto [[ref:a b]]!", "Suman $59 M; el resto!"],
    ["[[ref:r1]] Hay 3.\n[[ref:r2]] Son 4 [[ref:r2]]\n\nFin [[ref:r3]]", "Hay 3.\nSon 4\n\nFin"],
    ["Sin tokens, sin cambios.", "Sin tokens, sin cambios."],
    ["Un [ref:r1] o [[ref:]] no es un token.", "Un [ref:r1] o [[ref:]] no es un token."]
  ]
  for (const [raw, displayed] of cases) {
    it(JSON.stringify(raw), () => {
      const stripped = stripRefTokens(raw)
      assert.strictEqual(stripped, displayed)
      assert.notMatch(stripped, / {2}|\s[.,;:!?]/)
    })
  }
})

describe("what is not a figure", () => {
  for (const { examples, what } of NOT_FIGURES) {
    it(`${what}: ${examples.join(", ")}`, () => {
      for (const example of examples) {
        assert.deepStrictEqual(figuresOf(`Dato:\n${example} y nada más.`).map((f) => f.text), [], example)
        assert.deepStrictEqual(figuresOf(`Dato:\n${example} con 7 empresas.`).map((f) => f.text), ["7"], example)
      }
    })
  }

  it("a year standing alone is a figure, and anchors when the payload has it", () => {
    assert.deepStrictEqual(figuresOf("En 2025 y 2026-01 hubo ventas.").map((f) => f.text), ["2025"])
    assert.isTrue(checkAnchors({ narration: "Fundada en 2025 [[ref:y]].", results: [{ ref: "y", payload: { year: 2025 } }] }).ok)
  })
})

describe("the harvest", () => {
  it("skips every instruction subtree wherever it stands, and keeps cost and array lengths", () => {
    assert.deepStrictEqual(NON_CITABLE, ["next_actions", "warnings", "hint"])
    const values = harvest([search]).get(search.ref)?.values ?? []
    for (const instruction of [77, 500, 8800, 51]) assert.notInclude(values, instruction)
    for (const citable of [20, 140, 1284, 3, 120, 1234567.4]) assert.include(values, citable)
  })

  it("makes a ref of every nested object with a string ref, over its own subtree only", () => {
    const refs = harvest([search])
    assert.deepStrictEqual(refs.get("company:co_b2")?.values, [45, 2011, 935959])
    assert.isTrue(refs.has("companies_search:s1"))
  })

  it("pairs a part with its whole: fields of one object, and a field with its namesake on an enclosing object", () => {
    const parts = harvest([{ ref: "p", payload: { total: 100, enviados: 50, groups: [{ total: 30, n: 4 }, { total: 20 }] } }]).get("p")
      ?.parts
    assert.sameDeepMembers([...(parts ?? [])], [[50, 100], [2, 50], [2, 100], [4, 30], [30, 100], [20, 100]])
  })

  it("forms no percentage from a pair of unrelated values, however many values a ref has", () => {
    const payload = { items: Array.from({ length: 5_000 }, (_, i) => ({ amount: i * 7 + 3 })) }
    const report = checkAnchors({ narration: "Son el 37 % del total [[ref:big]].", results: [{ ref: "big", payload }] })
    assert.isFalse(report.ok, "37 % is a/b of many pairs of items, and the share of none")
  })
})

describe("the report", () => {
  it("says which ref and which value each figure anchors to, in narration order", () => {
    const report = checkAnchors({
      narration: "Ciudad de México concentra el 60,9 % [[ref:market_aggregate_awards:q7]] y promedian 66,7 empleados " +
        "[[ref:companies_search:s1]]. Acme tiene 120 [[ref:company:co_a1]].",
      results: all
    })
    assert.deepStrictEqual(report.anchors, [
      { figure: "60,9 %", ref: aggregate.ref, value: 60.89, via: "percentage" },
      { figure: "66,7", ref: search.ref, value: 66.6666666667, via: "average" },
      { figure: "120", ref: "company:co_a1", value: 120, via: "value" }
    ])
  })

  it("shows an unanchored figure's sentence as displayed, tokens stripped", () => {
    const report = checkAnchors({ narration: `Primero. Respondió el 16 % [[ref:${kpi.ref}]] de ellos. Fin.`, results: all })
    assert.deepStrictEqual(report.unanchored_figures, [{ figure: "16 %", sentence: "Respondió el 16 % de ellos.", ref: kpi.ref }])
  })
})

describe("anchoredOnly", () => {
  it("keeps the sentences whose figures all anchor and whose refs resolve, tokens in", () => {
    const narration = `Hay 1.284 empresas [[ref:${search.ref}]]. Quedan 8800 [[ref:${search.ref}]]. ` +
      `Acme tiene 120 empleados [[ref:company:co_a1]].\n\nVer [[ref:ghost]].\n\nEl total es $59 M [[ref:${aggregate.ref}]]. Y 7 más.`
    const kept = anchoredOnly(narration, all)
    assert.strictEqual(
      kept.narration,
      `Hay 1.284 empresas [[ref:${search.ref}]]. Acme tiene 120 empleados [[ref:company:co_a1]].\n\nEl total es $59 M [[ref:${aggregate.ref}]].`
    )
    assert.strictEqual(kept.dropped, 3)
    assert.isTrue(checkAnchors({ narration: kept.narration, results: all }).ok)
  })

  it("keeps a narration that already anchors as it is, and leaves nothing of one that does not", () => {
    const good = `Hay 3 empresas [[ref:${search.ref}]].\nSin más cifras.`
    assert.deepStrictEqual(anchoredOnly(good, all), { narration: good, dropped: 0 })
    assert.deepStrictEqual(anchoredOnly("Hay 9 empresas. Y 4 más [[ref:nope]].", all), { narration: "", dropped: 2 })
  })
})
