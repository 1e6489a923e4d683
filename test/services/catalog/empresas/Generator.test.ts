import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { CHILE_REGIONS } from "../../../../schema/geo/ChileRegions.ts"
import { MEXICO_STATES } from "../../../../schema/geo/MexicoStates.ts"
import { Rfc } from "../../../../schema/tax/Rfc.ts"
import { Rut } from "../../../../schema/upstream/Rut.ts"
import { companyAt, directoryBatches, type GeneratedCompany } from "../../../../services/catalog/empresas/Generator.ts"

const all = (seed: string, n: number): ReadonlyArray<GeneratedCompany> => [...directoryBatches(seed, n, 700)].flat()
const isRut = Schema.is(Rut)
const decodeRfc = Schema.decodeUnknownEither(Rfc)
const regions = new Set<string>([...CHILE_REGIONS, ...MEXICO_STATES].map((p) => p.code))

describe("directory generator", () => {
  it("the same seed gives the same rows, ids included; another seed other rows", () => {
    const a = all("alpha", 300)
    assert.deepStrictEqual(all("alpha", 300), a)
    const b = all("beta", 300)
    assert.notDeepEqual(b.map((g) => g.company.taxId), a.map((g) => g.company.taxId))
    assert.notStrictEqual(b[0]?.company.id, a[0]?.company.id)
    // batches only cut the sequence: the 250th company is the same alone as in a batch
    assert.deepStrictEqual(companyAt("alpha", 250), a[250])
  })

  it("every RUT and RFC has a valid check digit, no tax id repeats, every region is known", () => {
    const companies = all("checks", 4000).map((g) => g.company)
    const chile = companies.filter((c) => c.country === "CL")
    const mexico = companies.filter((c) => c.country === "MX")
    assert.isAbove(chile.length, 4000 * 0.5)
    assert.isAbove(mexico.length, 4000 * 0.4)
    for (const c of chile) {
      assert.isTrue(isRut(c.taxId), c.taxId)
      const body = Number(c.taxId.split("-")[0])
      assert.isTrue(body >= 76_000_000 && body < 79_000_000, c.taxId)
      assert.isNotNull(c.giro)
    }
    for (const c of mexico) {
      assert.strictEqual(c.taxId.length, 12, c.taxId)
      assert.isTrue(Either.isRight(decodeRfc(c.taxId)), c.taxId)
    }
    assert.strictEqual(new Set(companies.map((c) => c.taxId)).size, companies.length)
    assert.strictEqual(new Set(companies.map((c) => c.id)).size, companies.length)
    for (const c of companies) assert.isTrue(regions.has(c.region) && c.region.startsWith(`${c.country}-`), c.region)
  })

  it("Mexico leans to CDMX, Edomex, Jalisco and Nuevo León; people are 1–6 per company, some without email or phone", () => {
    const generated = all("mix", 3000)
    const mexico = generated.filter((g) => g.company.country === "MX")
    const big = mexico.filter((g) => ["MX-CMX", "MX-MEX", "MX-JAL", "MX-NLE"].includes(g.company.region)).length
    assert.isAbove(big / mexico.length, 0.4)
    const people = generated.flatMap((g) => g.people)
    for (const g of generated) {
      assert.isTrue(g.people.length >= 1 && g.people.length <= 6)
      for (const p of g.people) {
        assert.strictEqual(p.companyId, g.company.id)
        if (p.email !== null) assert.isTrue(p.email.endsWith(`@${g.company.domain}`), p.email)
      }
    }
    const noEmail = people.filter((p) => p.email === null).length / people.length
    const noPhone = people.filter((p) => p.phone === null).length / people.length
    assert.isTrue(noEmail > 0.1 && noEmail < 0.2, `no email ${noEmail}`)
    assert.isTrue(noPhone > 0.33 && noPhone < 0.47, `no phone ${noPhone}`)
  })
})
