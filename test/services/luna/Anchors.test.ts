import { assert, describe, it } from "@effect/vitest"
import type { AnchorVia, CitedResult } from "../../../schema/luna/Anchors.ts"
import { MAX_SIBLINGS } from "../../../services/luna/anchors/Harvest.ts"
import { checkAnchors } from "../../../services/luna/anchors/Validate.ts"
import { aggregate, all, kpi, list, search, sent } from "./Results.ts"

const S = search.ref
const A = aggregate.ref
const K = kpi.ref

interface Case {
  readonly narration: string
  readonly anchored?: ReadonlyArray<readonly [figure: string, via: AnchorVia]>
  /** [figure] when no token covered it, [figure, ref] when one did */
  readonly unanchored?: ReadonlyArray<readonly [string] | readonly [string, string]>
  readonly unresolved?: ReadonlyArray<string>
}

const CASES: ReadonlyArray<Case> = [
  { narration: `Acme factura $1.234.567 al año [[ref:company:co_a1]].`, anchored: [["$1.234.567", "value"]] },
  { narration: `Acme factura $1,234,567.40 al año [[ref:company:co_a1]].`, anchored: [["$1,234,567.40", "value"]] },
  { narration: `Acme factura 1234567.4 [[ref:company:co_a1]].`, anchored: [["1234567.4", "value"]] },
  { narration: `Acme factura US$1.234.567 [[ref:company:co_a1]].`, anchored: [["US$1.234.567", "value"]] },
  { narration: `El monto total fue de MXN 59.123.456,78 [[ref:${A}]].`, anchored: [["MXN 59.123.456,78", "value"]] },
  { narration: `El monto total fue de $59,123,456.78 MXN [[ref:${A}]].`, anchored: [["$59,123,456.78 MXN", "value"]] },
  { narration: `Se adjudicaron $59 M en total [[ref:${A}]].`, anchored: [["$59 M", "value"]] },
  { narration: `Se adjudicaron 59,1 millones de pesos [[ref:${A}]].`, anchored: [["59,1 millones de pesos", "value"]] },
  { narration: `Se adjudicaron 59,2 millones [[ref:${A}]].`, unanchored: [["59,2 millones", A]] },
  { narration: `El promedio por contrato fue de 143,5 mil pesos [[ref:${A}]].`, anchored: [["143,5 mil pesos", "value"]] },
  { narration: `Unos 144k por contrato [[ref:${A}]].`, anchored: [["144k", "value"]] },
  { narration: `Desde 2020 suman 1,2 mil millones [[ref:${A}]].`, unanchored: [["2020", A]], anchored: [["1,2 mil millones", "value"]] },
  { narration: `Ciudad de México recibió US$ 36 MM [[ref:${A}]].`, anchored: [["US$ 36 MM", "value"]] },
  { narration: `Recibió 1 millón más que nadie [[ref:${A}]].`, unanchored: [["1 millón", A]] },
  { narration: `La búsqueda encontró 1.284 empresas [[ref:${S}]].`, anchored: [["1.284", "value"]] },
  { narration: `La búsqueda encontró 1,284 empresas [[ref:${S}]].`, anchored: [["1,284", "value"]] },
  { narration: `La búsqueda encontró 1284 empresas [[ref:${S}]].`, anchored: [["1284", "value"]] },
  { narration: `Te muestro 3 empresas [[ref:${S}]].`, anchored: [["3", "value"]] },
  { narration: `Exactamente 1.234 [[ref:x1]], no 1.235 [[ref:x1]].`, anchored: [["1.234", "value"]], unanchored: [["1.235", "x1"]] },
  { narration: `El factor es 1,234 [[ref:x2]], no 1.234,0 [[ref:x2]].`, anchored: [["1,234", "value"]], unanchored: [["1.234,0", "x2"]] },
  { narration: `La lista tiene 48 empresas [[ref:${list.ref}]].`, anchored: [["48", "value"]] },
  {
    narration: `La variación fue de -3,2 % [[ref:${K}]] y el saldo -$12.500 [[ref:${K}]].`,
    anchored: [["-3,2 %", "value"], ["-$12.500", "value"]]
  },
  { narration: `El saldo es de 12.500 [[ref:${K}]].`, unanchored: [["12.500", K]] },
  { narration: `Acme se fundó en 2025 [[ref:company:co_a1]].`, anchored: [["2025", "value"]] },
  { narration: `Beta se fundó en 2012 [[ref:company:co_b2]].`, unanchored: [["2012", "company:co_b2"]] },
  {
    narration: `Beta factura CLP 935.959 [[ref:company:co_b2]], o sea 935.959 pesos [[ref:company:co_b2]].`,
    anchored: [["CLP 935.959", "value"], ["935.959 pesos", "value"]]
  },
  { narration: `La tasa de respuesta es 14,7 % [[ref:${K}]].`, anchored: [["14,7 %", "value"]] },
  { narration: `La tasa de respuesta es 14,6 % [[ref:${K}]].`, unanchored: [["14,6 %", K]] },
  { narration: `La tasa de respuesta es 14.7% [[ref:${K}]].`, anchored: [["14.7%", "value"]] },
  { narration: `Ciudad de México concentra el 60,9 % [[ref:${A}]].`, anchored: [["60,9 %", "percentage"]] },
  { narration: `Respondió el 14,8 % de los contactados [[ref:${K}]].`, anchored: [["14,8 %", "percentage"]] },
  { narration: `Respondió el 16 % de los contactados [[ref:${K}]].`, unanchored: [["16 %", K]] },
  { narration: `Las tres suman 200 empleados [[ref:${S}]].`, anchored: [["200", "sum"]] },
  { narration: `En promedio tienen 66,7 empleados [[ref:${S}]].`, anchored: [["66,7", "average"]] },
  { narration: `En promedio tienen 67,5 empleados [[ref:${S}]].`, unanchored: [["67,5", S]] },
  { narration: `Por estado, el promedio es $19,7 millones [[ref:${A}]].`, anchored: [["$19,7 millones", "average"]] },
  { narration: `Se enviaron 262 correos en total [[ref:${sent.ref}]].`, anchored: [["262", "sum"]] },
  { narration: `Quedan 8800 resultados [[ref:${S}]].`, unanchored: [["8800", S]] },
  { narration: `Hay 500 advertencias [[ref:${S}]].`, unanchored: [["500", S]] },
  { narration: `Puedo traer 77 más [[ref:${S}]].`, unanchored: [["77", S]] },
  { narration: `Faltan 51 páginas [[ref:${S}]].`, unanchored: [["51", S]] },
  { narration: `La búsqueda costó 20 créditos y te quedan 140 [[ref:${S}]].`, anchored: [["20", "value"], ["140", "value"]] },
  { narration: `Hay 12 empresas [[ref:nope]].`, unanchored: [["12", "nope"]], unresolved: ["nope"] },
  {
    narration: `Hay 12 [[ref:nope]] y 13 [[ref:nope]], más detalle [[ref:ghost]].`,
    unanchored: [["12", "nope"], ["13", "nope"]],
    unresolved: ["nope", "ghost"]
  },
  { narration: `Hay 3 empresas.`, unanchored: [["3"]] },
  { narration: `Hay 3 empresas [[ref:${S}]] y 45 empleados.`, anchored: [["3", "value"]], unanchored: [["45"]] },
  {
    narration: `Acme tiene 120 empleados [[ref:company:co_a1]] y Beta 45 [[ref:company:co_b2]].`,
    anchored: [["120", "value"], ["45", "value"]]
  },
  {
    narration: `Acme tiene 45 empleados [[ref:company:co_a1]] y Beta 120 [[ref:company:co_b2]].`,
    unanchored: [["45", "company:co_a1"], ["120", "company:co_b2"]]
  },
  { narration: `Acme tiene 120 empleados [[ref:${S}]].`, anchored: [["120", "value"]] },
  { narration: `Hay 412 contratos [[ref:${S}]].`, unanchored: [["412", S]] },
  { narration: `Hay 3 empresas. Son de Chile [[ref:${S}]].`, unanchored: [["3"]] },
  { narration: `Hay 3 empresas.[[ref:${S}]] Son de Chile. Son 35 [[ref:company:co_c3]]!`, anchored: [["3", "value"], ["35", "value"]] },
  {
    narration: `Según el G20 y el folio r3, Acme (RUT 76.123.456-7, company:co_a1) tiene 120 empleados [[ref:company:co_a1]].`,
    anchored: [["120", "value"]]
  },
  {
    narration: `El 15/01/2026 a las 14:30 (2026-01-15T14:30:00Z) tenía 120 empleados [[ref:company:co_a1]].`,
    anchored: [["120", "value"]]
  },
  { narration: `Gamma (RFC GODE561231GR8) tiene 35 empleados y es la 3era [[ref:company:co_c3]].`, anchored: [["35", "value"]] },
  {
    narration: `Las que más emplean:\n1. Acme, 120 [[ref:company:co_a1]]\n2. Beta, 45 [[ref:company:co_b2]]`,
    anchored: [["120", "value"], ["45", "value"]]
  },
  { narration: `No encontré nada más. ¿Busco en otra región?` }
]

const fields = (count: number) => ({
  a: 10,
  b: 40,
  ...Object.fromEntries(Array.from({ length: count - 2 }, (_, i) => [`f${i}`, 1000 + i]))
})

/** A total and its groups; a record of 16 numeric fields, and one of 17. */
const PARTS: ReadonlyArray<CitedResult> = [
  { ref: "p1", payload: { total: 400, groups: [{ total: 90 }, { total: 30 }] } },
  { ref: "narrow", payload: fields(MAX_SIBLINGS) },
  { ref: "wide", payload: fields(MAX_SIBLINGS + 1) }
]

/** Percentages: each way one anchors (a part of its whole in one ref, or two figures stated in its sentence), and each refusal. */
const PERCENTAGES: ReadonlyArray<Case> = [
  { narration: `Respondió el 14,8 % de los contactados [[ref:${K}]].`, anchored: [["14,8 %", "percentage"]] },
  { narration: `Rebotó el 4,8 % de lo enviado [[ref:${sent.ref}]].`, anchored: [["4,8 %", "percentage"]] },
  { narration: `El grupo A hace el 22,5 % del total [[ref:p1]].`, anchored: [["22,5 %", "percentage"]] },
  { narration: `El grupo A hace el 75 % de lo agrupado [[ref:p1]].`, anchored: [["75 %", "percentage"]] },
  { narration: `Ciudad de México tuvo el 60,7 % de los contratos [[ref:${A}]].`, anchored: [["60,7 %", "percentage"]] },
  { narration: `Ciudad de México recibió el 60,9 % del monto [[ref:${A}]].`, anchored: [["60,9 %", "percentage"]] },
  { narration: `a es el 25 % de b [[ref:narrow]].`, anchored: [["25 %", "percentage"]] },
  {
    narration: `De 250 enviados [[ref:${sent.ref}]], 12 rebotaron [[ref:${sent.ref}]]: un 4,8 %.`,
    anchored: [["250", "value"], ["12", "value"], ["4,8 %", "stated_percentage"]]
  },
  {
    narration: `Acme tiene 120 empleados [[ref:company:co_a1]] y Beta 45 [[ref:company:co_b2]], el 37,5 % de los de Acme.`,
    anchored: [["120", "value"], ["45", "value"], ["37,5 %", "stated_percentage"]]
  },
  {
    narration: `Ciudad de México recibió US$ 36 MM [[ref:${A}]] de $59 M [[ref:${A}]], un 61,0 %.`,
    anchored: [["US$ 36 MM", "value"], ["$59 M", "value"], ["61,0 %", "stated_percentage"]]
  },
  { narration: `Acme tiene el 9,3 % de las empresas encontradas [[ref:${S}]].`, unanchored: [["9,3 %", S]] },
  { narration: `Beta tiene el 37,5 % de los empleados de Acme [[ref:${S}]].`, unanchored: [["37,5 %", S]] },
  { narration: `Los enviados son el 675,7 % de los que respondieron [[ref:${K}]].`, unanchored: [["675,7 %", K]] },
  { narration: `Las empresas crecieron un 300 % [[ref:${S}]].`, unanchored: [["300 %", S]] },
  { narration: `a es el 25 % de b [[ref:wide]].`, unanchored: [["25 %", "wide"]] },
  {
    narration: `Hubo 250 enviados [[ref:${sent.ref}]] y 12 rebotes [[ref:${sent.ref}]]. Un 4,8 % rebotó.`,
    anchored: [["250", "value"], ["12", "value"]],
    unanchored: [["4,8 %"]]
  },
  { narration: `De 250 enviados, 12 rebotaron: un 4,8 %.`, unanchored: [["250"], ["12"], ["4,8 %"]] },
  {
    narration: `De 250 enviados [[ref:${sent.ref}]], 12 rebotaron [[ref:${sent.ref}]]: un 5,2 %.`,
    anchored: [["250", "value"], ["12", "value"]],
    unanchored: [["5,2 %"]]
  },
  {
    narration: `La tasa es 14,7 % [[ref:${K}]] y Chile pesa 14,7 % [[ref:${K}]]: el 100 %.`,
    anchored: [["14,7 %", "value"], ["14,7 %", "value"]],
    unanchored: [["100 %"]]
  }
]

const shape = (narration: string, results: ReadonlyArray<CitedResult> = all): {
  readonly ok: boolean
  readonly anchored: ReadonlyArray<ReadonlyArray<string>>
  readonly unanchored: ReadonlyArray<ReadonlyArray<string>>
  readonly unresolved: ReadonlyArray<string>
} => {
  const report = checkAnchors({ narration, results })
  return {
    ok: report.ok,
    anchored: report.anchors.map((a) => [a.figure, a.via]),
    unanchored: report.unanchored_figures.map((u) => (u.ref === undefined ? [u.figure] : [u.figure, u.ref])),
    unresolved: report.unresolved_refs
  }
}

const expect = (c: Case, results?: ReadonlyArray<CitedResult>) => () => {
  const unanchored = c.unanchored ?? []
  const unresolved = c.unresolved ?? []
  assert.deepStrictEqual(shape(c.narration, results), {
    ok: unanchored.length === 0 && unresolved.length === 0,
    anchored: c.anchored ?? [],
    unanchored,
    unresolved
  })
}

describe("percentages", () => {
  for (const c of PERCENTAGES) it(c.narration, expect(c, [...all, ...PARTS]))
})

describe("checkAnchors", () => {
  it(`covers a table of ${CASES.length} narrations`, () => {
    assert.isAtLeast(CASES.length, 40)
  })

  for (const c of CASES) it(c.narration, expect(c))
})
