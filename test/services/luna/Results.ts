import type { CitedResult } from "../../../schema/luna/Anchors.ts"

const company = (id: string, taxId: string, employees: number, founded: number, revenue: string) => ({
  id,
  ref: `company:${id}`,
  tax_id: taxId,
  legal_name: `Empresa ${id}`,
  employees,
  founded_year: founded,
  revenue
})

/** A companies_search answer as the executor sends it: data, instructions, cost, meta. */
export const search: CitedResult = {
  ref: "companies_search:s1",
  payload: {
    data: {
      search_id: "s1",
      ref: "companies_search:s1",
      total: 1284,
      total_is_lower_bound: false,
      companies: [
        company("co_a1", "76.123.456-7", 120, 2025, "1234567.40"),
        company("co_b2", "77.222.333-K", 45, 2011, "935959"),
        company("co_c3", "GODE561231GR8", 35, 1998, "59123456")
      ],
      hint: { pages_left: 51 },
      cursor: null
    },
    next_actions: [{ tool: "companies_search", reason: "la página siguiente", input: { limit: 77 } }],
    warnings: ["500"],
    hint: "8800",
    cost: {
      kind: "credits",
      credits: 20,
      unit: "company",
      unit_price: 1,
      delivered: 20,
      balance_after: 140,
      quote_id: "q_9",
      replayed: false
    },
    meta: { request_id: "req_1", tool_id: "companies_search", plane: "read", audit_status: "recorded" }
  }
}

/** A market_aggregate_awards answer (MXN). */
export const aggregate: CitedResult = {
  ref: "market_aggregate_awards:q7",
  payload: {
    data: {
      ref: "market_aggregate_awards:q7",
      group_by: "state",
      source: "rollup",
      n: 412,
      total: 59123456.78,
      average: 143503.54,
      historic_total: 1234567890,
      groups_total: 3,
      groups: [
        { key: "MX-CMX", label: "Ciudad de México", n: 250, total: 36000000, share: 0.6089 },
        { key: "MX-JAL", label: "Jalisco", n: 100, total: 14000000, share: 0.2368 },
        { key: "MX-NLE", label: "Nuevo León", n: 62, total: 9123456.78, share: 0.1543 }
      ],
      other: null
    }
  }
}

export const list: CitedResult = {
  ref: "list:l1@2026-01-01T00:00:00.000Z",
  payload: { data: { ref: "list:l1@2026-01-01T00:00:00.000Z", name: "Prospectos", items: 48 } }
}

/** Figures of a sequence's outcome: a rate, a share, a count pair, a change, a balance. */
export const kpi: CitedResult = {
  ref: "r3",
  payload: { tasa_respuesta: 14.68, share_chile: 0.147, enviados: 250, respondidos: 37, variacion_pct: -3.2, saldo: -12500 }
}

export const sent: CitedResult = { ref: "r7", payload: { enviados: 250, rebotados: 12 } }

export const exact: CitedResult = { ref: "x1", payload: { a: 1234, b: "0.25" } }

export const factor: CitedResult = { ref: "x2", payload: { factor: 1.234 } }

export const all: ReadonlyArray<CitedResult> = [search, aggregate, list, kpi, sent, exact, factor]
