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
  "account_get",
  "sequence_create",
  "sequence_update",
  "sequence_recipients_set",
  "sequence_preview",
  "sequence_get",
  "sequence_preflight"
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
  "market_get_opportunity",
  "market_count_suppliers",
  "market_compare_segments",
  "market_aggregate_awards",
  "market_get_supplier_history",
  "market_screen_risks"
]

describe("the Brein catalog", () => {
  it("holds 35 public tools (22 core, 13 Mercado) and 2 session tools, and only the session tools are internal", () => {
    assert.strictEqual(CORE.length + MERCADO.length, 35)
    assert.strictEqual(catalogTools.length, 37)
    assert.deepStrictEqual(ids(catalogTools), [...CORE, ...MERCADO, ...SESSION].sort())
    assert.deepStrictEqual(ids(catalogTools.filter((t) => t.spec.external === false)), [...SESSION].sort())
  })

  it("declares all four hints on every tool, action plane throughout", () => {
    for (const tool of catalogTools) {
      assert.strictEqual(tool.spec.plane, "action", tool.spec.id)
      assert.deepStrictEqual(Object.keys(tool.spec.hints).sort(), ["destructive", "idempotent", "openWorld", "readOnly"], tool.spec.id)
    }
  })

  it(`shows at most ${MAX_VISIBLE_TOOLS} tools on each stage's belt, with room left for Mercado`, () => {
    for (const stage of STAGES) {
      const belt = catalogTools.filter((t) => t.spec.stages.includes(stage))
      assert.isAtMost(belt.length, MAX_VISIBLE_TOOLS, stage)
    }
    const onBelt = (stage: (typeof STAGES)[number]) => ids(catalogTools.filter((t) => t.spec.stages.includes(stage)))
    // buscando: the base tools (market_count_suppliers among them), the selection and every Mercado tool but
    // market_capabilities, which is on no belt: it is compiled into the turn input
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
    assert.strictEqual(onBelt("buscando").length, 17)
    assert.deepStrictEqual(catalogTools.find((t) => t.spec.id === "market_capabilities")?.spec.stages, [])
    // con_lista: the base tools, lists, reveal, enrich, CRM, the selection and the six sequence tools
    assert.strictEqual(onBelt("con_lista").length, 18)
    assert.include(onBelt("con_lista"), "market_count_suppliers")
    assert.include(onBelt("prospectando"), "market_count_suppliers")
  })
})
