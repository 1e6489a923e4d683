import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { CONTROL } from "../../../schema/luna/Control.ts"
import { MAX_VISIBLE_TOOLS, STAGES } from "../../../schema/tools/Definition.ts"
import { beltOf, stageAfter } from "../../../services/luna/Belts.ts"
import { functionsOf } from "../../../services/luna/TurnInput.ts"
import { Registry } from "../../../services/tools/Registry.ts"
import { catalog } from "../../../services/tools/Source.ts"
import { action } from "../../../services/tools/Tool.ts"
import { ServicesTest } from "../../support/TestLayers.ts"

const tool = (id: string, stages: ReadonlyArray<(typeof STAGES)[number]>) =>
  action({
    id,
    family: "testing",
    label: id,
    description: `the ${id} tool`,
    plan: "free",
    hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    cost: { kind: "free" },
    level: 0,
    stages,
    input: Schema.Struct({}),
    output: Schema.Struct({}),
    handler: () => Effect.succeed({})
  })

describe("belts", () => {
  it.effect("come from each definition's stages, sorted by id: a new tool with a stage is on that belt with no list to edit", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make([
        catalog({
          family: "testing",
          tools: [tool("zeta_find", ["buscando"]), tool("alpha_find", ["buscando", "con_lista"]), tool("hidden", [])]
        })
      ])
      assert.deepStrictEqual(beltOf(registry.tools, "buscando").map((t) => t.descriptor.id), ["alpha_find", "zeta_find"])
      assert.deepStrictEqual(beltOf(registry.tools, "con_lista").map((t) => t.descriptor.id), ["alpha_find"])
      assert.deepStrictEqual(beltOf(registry.tools, "prospectando"), [])
    }))

  it("offer the belt and then the loop's three control functions, whose names no registry id can take", () => {
    const names = functionsOf([]).map((f) => f.tool)
    assert.deepStrictEqual(names, [CONTROL.decision, CONTROL.limit, CONTROL.stage])
    for (const name of names) assert.notMatch(name, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/)
  })

  it("a saved or opened list moves to con_lista; a search from buscando to prospectando; other tools keep the stage", () => {
    assert.strictEqual(stageAfter("list_save", "prospectando"), "con_lista")
    assert.strictEqual(stageAfter("list_get", "buscando"), "con_lista")
    assert.strictEqual(stageAfter("companies_search", "buscando"), "prospectando")
    assert.strictEqual(stageAfter("companies_search", "con_lista"), "con_lista")
    assert.strictEqual(stageAfter("market_search_awards", "buscando"), "buscando")
  })
})

layer(ServicesTest)("the Brein catalog's belts", (it) => {
  it.effect("buscando shows the base tools and Mercado, con_lista the sequences, reveal, enrichment, lists and CRM, each within the cap", () =>
    Effect.gen(function* () {
      const registry = yield* Registry
      for (const stage of STAGES) {
        const belt = beltOf(registry.tools, stage).map((t) => t.descriptor.id)
        const expected = registry.tools.filter((t) => t.descriptor.stages.includes(stage)).map((t) => t.descriptor.id).sort()
        assert.deepStrictEqual(belt, expected, stage)
        assert.isAtMost(belt.length, MAX_VISIBLE_TOOLS, stage)
      }
      const buscando = beltOf(registry.tools, "buscando").map((t) => t.descriptor.id)
      assert.strictEqual(buscando.length, 17)
      assert.includeMembers(buscando, ["board_read", "usage", "market_count_suppliers", "market_search_awards", "selection_update"])
      assert.notInclude(buscando, "market_capabilities")
      assert.notInclude(buscando, "companies_search")
      const conLista = beltOf(registry.tools, "con_lista").map((t) => t.descriptor.id)
      assert.includeMembers(conLista, ["sequence_create", "sequence_preflight", "people_reveal", "company_enrich", "list_save", "crm_save"])
      assert.notInclude(conLista, "market_search_awards")
    }))
})
