import { assert, describe, it } from "@effect/vitest"
import { sources } from "../../../layers/Registry.ts"
import { MAX_VISIBLE_TOOLS, STAGES } from "../../../schema/tools/Definition.ts"
import type { AnyTool } from "../../../services/tools/Tool.ts"

const catalogTools = sources.flatMap((source): ReadonlyArray<AnyTool> => (source.kind === "catalog" ? source.tools : []))
const ids = (tools: ReadonlyArray<AnyTool>) => tools.map((t) => t.spec.id).sort()

const CORE = [
  "companies_search",
  "company_get",
  "people_search",
  "person_get",
  "list_save",
  "list_get",
  "company_enrich",
  "people_reveal",
  "crm_lookup",
  "crm_save",
  "context_retrieve",
  "context_get",
  "context_create",
  "context_update",
  "usage",
  "account_get"
]
const SESSION = ["board_read", "selection_update"]
const MERCADO = [
  "market_capabilities",
  "market_search_suppliers",
  "market_search_opportunities",
  "market_search_awards",
  "market_search_permits",
  "market_search_risks",
  "market_get_supplier",
  "market_get_opportunity"
]

describe("the Brein catalog", () => {
  it("holds the 16 core tools, 8 Mercado tools and the 2 session tools, and only the session tools are internal", () => {
    assert.deepStrictEqual(ids(catalogTools), [...CORE, ...MERCADO, ...SESSION].sort())
    assert.deepStrictEqual(ids(catalogTools.filter((t) => t.spec.external === false)), [...SESSION].sort())
  })

  it("declares all four hints on every tool, action plane throughout", () => {
    for (const tool of catalogTools) {
      assert.strictEqual(tool.spec.plane, "action", tool.spec.id)
      assert.deepStrictEqual(Object.keys(tool.spec.hints).sort(), ["destructive", "idempotent", "openWorld", "readOnly"], tool.spec.id)
    }
  })

  it(`shows at most ${MAX_VISIBLE_TOOLS} tools on each stage's belt, with room left for the sequences and Mercado`, () => {
    for (const stage of STAGES) {
      const belt = catalogTools.filter((t) => t.spec.stages.includes(stage))
      assert.isAtMost(belt.length, MAX_VISIBLE_TOOLS, stage)
    }
    const onBelt = (stage: (typeof STAGES)[number]) => ids(catalogTools.filter((t) => t.spec.stages.includes(stage)))
    // buscando: the base tools, the selection and Mercado's searches and records (market_capabilities is on no belt:
    // it is compiled into the turn input); the five Mercado aggregates join it next (17 in all)
    assert.deepStrictEqual(
      onBelt("buscando"),
      [
        "board_read",
        "context_get",
        "context_retrieve",
        "selection_update",
        "usage",
        ...MERCADO.filter((id) => id !== "market_capabilities")
      ]
        .sort()
    )
    assert.deepStrictEqual(catalogTools.find((t) => t.spec.id === "market_capabilities")?.spec.stages, [])
    // con_lista: the base tools, lists, reveal, enrich, CRM and the selection; the six sequence tools join it next (18 in all)
    assert.strictEqual(onBelt("con_lista").length, 11)
  })
})
