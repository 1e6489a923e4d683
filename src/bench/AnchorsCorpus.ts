import type { AnchorsInput, CitedResult } from "../../schema/luna/Anchors.ts"

const REGIONS = ["CL-RM", "CL-VS", "CL-BI", "MX-CMX", "MX-JAL", "MX-NLE"]
const es = (n: number, digits = 0) => n.toLocaleString("es-CL", { minimumFractionDigits: digits, maximumFractionDigits: digits })
const mx = (n: number, digits = 0) => n.toLocaleString("es-MX", { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** A companies_search answer: a page of companies, the instructions beside it and its credits cost. */
const searchResult = (i: number, size: number) => {
  const ref = `companies_search:s${i}`
  const companies = Array.from({ length: size }, (_, j) => ({
    id: `co_${i}_${j}`,
    ref: `company:co_${i}_${j}`,
    country: j % 2 === 0 ? "CL" : "MX",
    tax_id: j % 2 === 0 ? `76.${100 + j}.${200 + i % 700}-${j % 10}` : `GODE5612${String(j).padStart(2, "0")}GR8`,
    legal_name: `Empresa ${i}-${j} SpA`,
    industry: "software",
    size: j % 3 === 0 ? "mediana" : "pequeña",
    employees: 10 + ((i * 37 + j * 13) % 490),
    region: REGIONS[(i + j) % REGIONS.length],
    founded_year: 1980 + ((i + j * 7) % 45),
    revenue: `${(1_000_000 + ((i * 7919 + j * 104_729) % 90_000_000)).toFixed(2)}`
  }))
  const total = 1000 + i * 3
  const result: CitedResult = {
    ref,
    payload: {
      data: { search_id: `s${i}`, ref, total, total_is_lower_bound: false, companies, cursor: `c${i}` },
      next_actions: [{ tool: "people_search", reason: "contactos de la primera empresa", input: { company_id: `co_${i}_0`, limit: 25 } }],
      warnings: ["Algunas empresas no tienen dominio"],
      hint: "Pide la página siguiente con cursor",
      cost: {
        kind: "credits",
        credits: size,
        unit: "company",
        unit_price: 1,
        delivered: size,
        balance_after: 5000 - i,
        quote_id: `q${i}`,
        replayed: false
      },
      meta: { request_id: `req_${i}`, tool_id: "companies_search", plane: "read", latency_ms: 12 + i % 30, audit_status: "recorded" }
    }
  }
  const employees = companies.reduce((sum, c) => sum + c.employees, 0)
  return { result, total, employees, firstRevenue: Number(companies[0]?.revenue ?? 0) }
}

/** A market_aggregate_awards answer by state: totals, averages and shares. */
const aggregateResult = (i: number) => {
  const ref = `market_aggregate_awards:a${i}`
  const groups = REGIONS.slice(3).map((key, j) => {
    const n = 40 + ((i + j * 17) % 300)
    const total = n * (150_000 + ((i * 31 + j * 7) % 90_000)) + 0.45
    return { key, label: key, n, total, average: Math.round((total / n) * 100) / 100 }
  })
  const n = groups.reduce((s, g) => s + g.n, 0)
  const total = groups.reduce((s, g) => s + g.total, 0)
  const shares = groups.map((g) => Math.round((g.total / total) * 10_000) / 10_000)
  const result: CitedResult = {
    ref,
    payload: {
      data: {
        ref,
        group_by: "state",
        source: "rollup",
        n,
        total,
        average: Math.round((total / n) * 100) / 100,
        groups_total: groups.length,
        groups: groups.map((g, j) => ({ ...g, share: shares[j] })),
        other: null
      },
      meta: { request_id: `req_a${i}`, tool_id: "market_aggregate_awards", plane: "read", latency_ms: 9, audit_status: "recorded" }
    }
  }
  return { result, total, awards: n, firstShare: shares[0] ?? 0 }
}

type Search = ReturnType<typeof searchResult>
type Aggregate = ReturnType<typeof aggregateResult>

/** A narration of a turn: counts, amounts in es-CL and es-MX, scale words, sums, averages, shares, a credits cost; one in five slips. */
const narrationOf = (i: number, search: Search, aggregate: Aggregate, size: number): string => {
  const s = search.result.ref
  const a = aggregate.result.ref
  const slip = i % 5 === 0 ? ` Además hay ${search.total + 7} empresas más en otra región [[ref:${s}]].` : ""
  return [
    `Encontré ${es(search.total)} empresas que calzan con tu búsqueda (2026-01-15) [[ref:${s}]] y te muestro ${size} [[ref:${s}]].`,
    `Entre ellas suman ${es(search.employees)} empleados, unos ${es(search.employees / size, 1)} en promedio [[ref:${s}]].`,
    `La primera (RUT 76.123.456-7) factura $${es(Math.round(search.firstRevenue))} al año [[ref:${s}]].`,
    `En México se adjudicaron $${mx(aggregate.total, 2)} MXN en ${mx(aggregate.awards)} contratos [[ref:${a}]], unos ${
      es(aggregate.total / 1e6, 1)
    } millones [[ref:${a}]].`,
    `Ciudad de México concentra el ${es(aggregate.firstShare * 100, 1)} % del monto [[ref:${a}]].`,
    `La búsqueda costó ${size} créditos [[ref:${s}]].${slip}`
  ].join(i % 3 === 0 ? "\n\n" : " ")
}

/** `count` narrations, each against a search of 10–25 companies and an aggregate, deterministic. */
export const anchorsCorpus = (count: number): ReadonlyArray<AnchorsInput> =>
  Array.from({ length: count }, (_, i) => {
    const size = 10 + (i % 16)
    const search = searchResult(i, size)
    const aggregate = aggregateResult(i)
    return { narration: narrationOf(i, search, aggregate, size), results: [search.result, aggregate.result] }
  })
