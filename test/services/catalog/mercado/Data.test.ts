import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { createHash } from "node:crypto"
import { MARKET_SECTORS } from "../../../../schema/catalog/MarketSectors.ts"
import { MEXICO_STATES } from "../../../../schema/geo/MexicoStates.ts"
import { fisicaLetters, GENERIC_RFCS, Rfc } from "../../../../schema/tax/Rfc.ts"
import { MARKET_AS_OF } from "../../../../services/catalog/mercado/Calendar.ts"
import { marketBatches } from "../../../../services/catalog/mercado/Generator.ts"
import type { MarketBatch } from "../../../../services/catalog/mercado/Rows.ts"

const digests = (seed: string, awards: number) =>
  [...marketBatches(seed, awards, 700)].map((batch) => createHash("sha256").update(JSON.stringify(batch)).digest("hex"))

const merged = (seed: string, awards: number): MarketBatch => {
  const all = [...marketBatches(seed, awards)]
  return {
    units: all.flatMap((b) => b.units),
    suppliers: all.flatMap((b) => b.suppliers),
    permits: all.flatMap((b) => b.permits),
    risks: all.flatMap((b) => b.risks),
    opportunities: all.flatMap((b) => b.opportunities),
    awards: all.flatMap((b) => b.awards)
  }
}

const decodeRfc = Schema.decodeUnknownEither(Rfc)
const STATES = new Set<string>(MEXICO_STATES.map((s) => s.code))
const NUMBER = /^([LIA])([AO])-([0-9A-Z]{9})-E\d+-(\d{4})$/
const LETTER = { L: "licitacion_publica", I: "invitacion_tres", A: "adjudicacion_directa" } as const
const data = merged("checks", 12_000)

describe("Mercado generator", () => {
  it("the same seed gives the same batches, another seed others", () => {
    const a = digests("alpha", 2_500)
    assert.deepStrictEqual(digests("alpha", 2_500), a)
    const b = digests("beta", 2_500)
    assert.strictEqual(b.length, a.length)
    for (const [i, digest] of b.entries()) assert.notStrictEqual(digest, a[i], `batch ${i}`)
  })

  it("every RFC has SAT's check character, 12 characters for personas morales and 13 for físicas, none generic or repeated", () => {
    const holders = [...data.suppliers.map((s) => [s.rfc, s.persona] as const), ...data.risks.map((r) => [r.rfc, undefined] as const)]
    for (const [rfc, persona] of holders) {
      assert.isTrue(Either.isRight(decodeRfc(rfc)), rfc)
      assert.isFalse(GENERIC_RFCS.has(rfc), rfc)
      if (persona !== undefined) assert.strictEqual(rfc.length, persona === "moral" ? 12 : 13, rfc)
    }
    for (const p of data.permits) assert.isTrue(Either.isRight(decodeRfc(p.holderRfc)), p.holderRfc)
    assert.strictEqual(new Set(data.suppliers.map((s) => s.rfc)).size, data.suppliers.length)
    const fisicas = data.suppliers.filter((s) => s.persona === "fisica").length / data.suppliers.length
    assert.isTrue(fisicas > 0.25 && fisicas < 0.35, `físicas ${fisicas}`)
    const moral = data.suppliers.filter((s) => s.persona === "moral")
    for (const s of moral) assert.match(s.name, / (S\.A\. de C\.V\.|S\. de R\.L\. de C\.V\.|S\.A\.P\.I\. de C\.V\.|S\.C\.)$/)
  })

  it("a física's letters follow SAT: surname initial and inner vowel, maternal and given initials; an inconvenient word ends in X", () => {
    assert.strictEqual(fisicaLetters("Castañeda", "Flores", "Roberto"), "CAFR")
    assert.strictEqual(fisicaLetters("Mejía", "Ortiz", "Nicolás"), "MEOX")
  })

  it("every state is one of the 32, the big four lead, every sector is from the closed list", () => {
    const places = [...data.suppliers, ...data.units, ...data.opportunities, ...data.awards, ...data.permits]
    for (const row of places) assert.isTrue(STATES.has(row.state), row.state)
    const big = data.suppliers.filter((s) => ["MX-CMX", "MX-MEX", "MX-JAL", "MX-NLE"].includes(s.state)).length
    assert.isAbove(big / data.suppliers.length, 0.35)
    for (const s of data.suppliers) assert.isTrue(s.sector in MARKET_SECTORS, s.sector)
    assert.strictEqual(new Set(data.suppliers.map((s) => s.state)).size, 32)
  })

  it("procedure numbers carry the procedure type, the law and the buying unit's clave, and never repeat", () => {
    const claves = new Map(data.units.map((u) => [u.id, u.clave]))
    for (const o of data.opportunities) {
      const match = NUMBER.exec(o.number)
      assert.isNotNull(match, o.number)
      const [, type, law, clave, year] = match ?? []
      assert.strictEqual(LETTER[type as keyof typeof LETTER], o.procedureType, o.number)
      assert.strictEqual(law === "O" ? "LOPSRM" : "LAASSP", o.law, o.number)
      assert.strictEqual(o.law === "LOPSRM", o.contractType === "obra_publica" || o.contractType === "servicios_obra", o.number)
      assert.strictEqual(clave, claves.get(o.unitId))
      assert.strictEqual(year, o.publishedOn.slice(0, 4))
      assert.isTrue(o.opensOn >= o.publishedOn && (o.awardedOn === null || o.awardedOn >= o.opensOn), o.number)
    }
    assert.strictEqual(new Set(data.opportunities.map((o) => o.number)).size, data.opportunities.length)
    assert.strictEqual(new Set(data.units.map((u) => u.clave)).size, data.units.length)
  })

  it("awards: positive MXN amounts, coherent dates and status by the as-of date, denormalized columns agree", () => {
    const opportunities = new Map(data.opportunities.map((o) => [o.id, o]))
    const suppliers = new Map(data.suppliers.map((s) => [s.id, s]))
    assert.strictEqual(data.awards.length, 12_000)
    for (const a of data.awards) {
      const o = opportunities.get(a.opportunityId)
      const s = suppliers.get(a.supplierId)
      assert.isTrue(Number(a.amount) > 0 && /^\d+\.\d{2}$/.test(a.amount), a.amount)
      assert.isTrue(a.endsOn >= a.startsOn && a.startsOn >= a.signedOn && a.signedOn <= MARKET_AS_OF, a.id)
      if (a.status !== "cancelado") assert.strictEqual(a.status, a.endsOn < MARKET_AS_OF ? "expirado" : "activo")
      assert.strictEqual(o?.status, "complete")
      assert.isTrue(a.signedOn >= (o?.awardedOn ?? ""), a.id)
      assert.deepStrictEqual(
        [a.state, a.procedureType, a.contractType, a.unitId, a.supplierSize, a.year],
        [o?.state, o?.procedureType, o?.contractType, o?.unitId, s?.size, Number(a.signedOn.slice(0, 4))]
      )
    }
    assert.strictEqual(new Set(data.awards.map((a) => a.contractCode)).size, data.awards.length)
    const years = new Set(data.awards.map((a) => a.year))
    assert.deepStrictEqual([Math.min(...years), Math.max(...years)], [2019, 2026])
  })

  it("about 78 % direct awards by count, public tenders most of the money; median near 250,000 MXN", () => {
    const share = (type: string) => data.awards.filter((a) => a.procedureType === type).length / data.awards.length
    const money = (type: string) => data.awards.filter((a) => a.procedureType === type).reduce((sum, a) => sum + Number(a.amount), 0)
    const direct = share("adjudicacion_directa")
    assert.isTrue(direct >= 0.7 && direct <= 0.85, `direct awards ${direct}`)
    assert.isAbove(money("licitacion_publica"), 3 * money("adjudicacion_directa"))
    const amounts = data.awards.map((a) => Number(a.amount)).sort((x, y) => x - y)
    const median = amounts[amounts.length >> 1] ?? 0
    assert.isTrue(median > 150_000 && median < 400_000, `median ${median}`)
    const multi = new Map<string, number>()
    for (const a of data.awards) multi.set(a.opportunityId, (multi.get(a.opportunityId) ?? 0) + 1)
    assert.isAbove([...multi.values()].filter((n) => n > 1).length, 100)
  })

  it("risk lists: 69-B on about 0.5 % of suppliers, mostly definitivo; sanctions rare; outsiders listed too", () => {
    const onSuppliers = data.risks.filter((r) => r.supplierId !== null)
    const b69 = onSuppliers.filter((r) => r.list === "sat_69b")
    const rate = b69.length / data.suppliers.length
    assert.isTrue(rate > 0.002 && rate < 0.01, `69-B ${rate}`)
    const sanctions = onSuppliers.filter((r) => r.list === "sancion").length / data.suppliers.length
    assert.isTrue(sanctions > 0 && sanctions < 0.006, `sanctions ${sanctions}`)
    const all69b = data.risks.filter((r) => r.list === "sat_69b")
    const definitivo = all69b.filter((r) => r.status === "definitivo").length
    assert.isAbove(definitivo, all69b.length / 2)
    const rfcs = new Set(data.suppliers.map((s) => s.rfc))
    assert.isTrue(data.risks.some((r) => r.supplierId === null && !rfcs.has(r.rfc)))
    assert.isTrue(data.permits.some((p) => p.supplierId === null && !rfcs.has(p.holderRfc)))
    for (const r of data.risks) {
      if (r.status === "multa") assert.isNotNull(r.amount)
      if (r.status === "inhabilitacion") assert.isTrue(r.endsOn !== null && r.endsOn > r.publishedOn)
    }
    const barred = new Set(
      data.risks.filter((r) => r.status === "inhabilitacion" && (r.endsOn ?? "") > MARKET_AS_OF).map((r) => r.supplierId)
    )
    for (const s of data.suppliers) assert.strictEqual(s.status === "inhabilitado", barred.has(s.id), s.id)
  })

  it("permits: CRE numbers as PL/<n>/EXP/ES/<yyyy>, expired ones marked vencido", () => {
    const cre = data.permits.filter((p) => p.kind === "cre_petroliferos")
    assert.isAbove(cre.length, 20)
    for (const p of cre) assert.match(p.number, /^PL\/\d+\/EXP\/ES\/\d{4}$/)
    for (const p of data.permits) {
      assert.strictEqual(p.status === "vencido", p.expiresOn !== null && p.expiresOn < MARKET_AS_OF, p.number)
      assert.isTrue(p.issuedOn <= MARKET_AS_OF)
    }
    assert.strictEqual(new Set(data.permits.map((p) => p.number)).size, data.permits.length)
    assert.deepStrictEqual(new Set(data.permits.map((p) => p.kind)), new Set(["cre_petroliferos", "repse", "cofepris", "semarnat"]))
  })
})
