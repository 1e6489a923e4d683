import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { ToolId } from "../../../schema/Ids.ts"
import type { Cost, Hints, Level, Plan, Stage } from "../../../schema/tools/Definition.ts"
import { CoreConnector, EchoConnector } from "../../../services/connectors/Core.ts"
import { Executor } from "../../../services/pipeline/Executor.ts"
import { policyOf } from "../../../services/tools/Policy.ts"
import { Registry } from "../../../services/tools/Registry.ts"
import { catalog, connector, type Source } from "../../../services/tools/Source.ts"
import { action, connectedAction, read } from "../../../services/tools/Tool.ts"
import { TestDatabase } from "../../support/TestDatabase.ts"
import { callContext, issuePrincipal, servicesWith } from "../../support/TestLayers.ts"
import { FixtureRegistry, fixtureSources, pure } from "../pipeline/Fixtures.ts"

interface Overrides {
  readonly plan?: Plan
  readonly hints?: Hints
  readonly cost?: Cost
  readonly level?: Level
  readonly stages?: ReadonlyArray<Stage>
  readonly scope?: string
  readonly quote?: (input: object) => number
}

const writes = { readOnly: false, destructive: false, idempotent: true, openWorld: false }

const fields = (id: string, overrides: Overrides) => ({
  id,
  family: id.split(/[._]/)[0] ?? id,
  label: id,
  description: `the ${id} tool`,
  plan: "paid" as const,
  hints: pure,
  cost: { kind: "free" } as const,
  level: 0 as const,
  stages: [],
  input: Schema.Struct({}),
  output: Schema.Struct({}),
  handler: () => Effect.succeed({}),
  ...overrides
})

const act = (id: string, overrides: Overrides = {}) => action(fields(id, overrides))
const conn = (id: string, overrides: Overrides = {}) => connectedAction(fields(id, overrides))
const rd = (id: string, overrides: Overrides = {}) => read(fields(id, overrides))

const sync = rd("probe.conexion.sincronizar", { cost: { kind: "read" } })
const consultar = conn("probe.items.consultar", { scope: "items" })
const probe = (...tools: ReadonlyArray<ReturnType<typeof act>>) =>
  connector({ id: "probe", label: "Probe", plan: "paid", requiresConnection: true, tools: [sync, consultar, ...tools] })
const family = (...tools: ReadonlyArray<ReturnType<typeof act>>) => catalog({ family: "testing", tools })

/** Building fails with exactly these (tool, rule) violations, and the message names each of them. */
const rejects = <const S extends ReadonlyArray<Source>>(sources: S, expected: ReadonlyArray<readonly [string, string]>) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(Registry.make(sources))
    assert.strictEqual(error._tag, "RegistryInvalid")
    assert.deepStrictEqual(error.violations.map((v) => [v.tool, v.rule]), expected.map(([tool, rule]) => [tool, rule]))
    for (const [tool, rule] of expected) assert.include(error.message, `${tool} [${rule}]`)
    return error
  })

describe("Registry invariants", () => {
  it.effect("a valid registry builds: free connectors, a read-plane connector with its two classes, a catalog family", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make([CoreConnector, EchoConnector, probe(), family(act("notes_get"))])
      assert.deepStrictEqual(registry.tools.map((t) => [t.descriptor.id, t.descriptor.plane, t.descriptor.connector]), [
        ["core.timestamp.now", "action", "core"],
        ["echo.message.reflect", "action", "echo"],
        ["probe.conexion.sincronizar", "read", "probe"],
        ["probe.items.consultar", "action", "probe"],
        ["notes_get", "action", null]
      ])
      assert.isTrue(Option.isSome(registry.get(ToolId.make("probe.items.consultar"))))
      assert.isTrue(Option.isNone(registry.get(ToolId.make("probe.items.listar"))))
    }))

  it.effect("read ⇒ paid: a read tool on the free plan is rejected", () =>
    rejects([
      connector({
        id: "probe",
        label: "Probe",
        plan: "paid",
        requiresConnection: true,
        tools: [rd("probe.conexion.sincronizar", { plan: "free" }), consultar]
      })
    ], [
      ["probe.conexion.sincronizar", "read_requires_paid"]
    ]))

  it.effect("read ⇒ paid: a free connector cannot declare a read-plane tool", () =>
    Effect.gen(function* () {
      const error = yield* rejects([
        connector({ id: "probe", label: "Probe", plan: "free", requiresConnection: true, tools: [sync, consultar] })
      ], [
        ["probe.conexion.sincronizar", "read_requires_paid"]
      ])
      assert.include(error.violations[0]?.message, `connector "probe" is free`)
    }))

  it.effect("ids are unique across sources", () =>
    rejects([probe(), family(act("notes_get")), catalog({ family: "other", tools: [act("notes_get")] })], [["notes_get", "unique_id"]]))

  it.effect("connector tool ids look like connector.recurso.verbo, under their own connector", () =>
    rejects([
      probe(
        conn("probe.Items.consultar", { scope: "items" }),
        conn("probe.consultar", { scope: "items" }),
        conn("sii.rcv.consultar", { scope: "rcv" })
      )
    ], [
      ["probe.Items.consultar", "id_shape"],
      ["probe.consultar", "id_shape"],
      ["sii.rcv.consultar", "id_shape"]
    ]))

  it.effect("catalog tool ids are snake_case", () =>
    rejects([family(act("companiesSearch"), act("companies-search"), act("companies_search"))], [
      ["companiesSearch", "id_shape"],
      ["companies-search", "id_shape"]
    ]))

  it.effect("connector ids are lower-case words", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Registry.make([connector({ id: "Probe", label: "Probe", plan: "free", requiresConnection: false, tools: [] })])
      )
      assert.deepStrictEqual(error.violations.map((v) => [v.tool, v.rule]), [["Probe", "id_shape"]])
    }))

  it.effect("two classes: a third class of data tool on a read-plane connector is rejected", () =>
    rejects([probe(conn("probe.items.listar"))], [["probe.items.listar", "two_classes"]]))

  it.effect("two classes: a read tool not named conexion.sincronizar is rejected", () =>
    rejects([probe(rd("probe.items.sincronizar"))], [["probe.items.sincronizar", "two_classes"]]))

  it.effect("two classes: conexion.sincronizar must be read plane", () =>
    rejects([
      connector({ id: "probe", label: "Probe", plan: "paid", requiresConnection: true, tools: [conn("probe.conexion.sincronizar")] })
    ], [
      ["probe.conexion.sincronizar", "two_classes"]
    ]))

  it.effect("two classes: .consultar on a connector without a read plane is rejected", () =>
    rejects([
      connector({
        id: "indicadores",
        label: "Indicadores",
        plan: "free",
        requiresConnection: false,
        tools: [act("indicadores.valor.consultar", { plan: "free", scope: "valores" })]
      })
    ], [
      ["indicadores.valor.consultar", "two_classes"]
    ]))

  it.effect("two classes: .consultar without a scope is rejected", () =>
    Effect.gen(function* () {
      const noScope = conn("probe.movimientos.consultar")
      yield* rejects([probe(noScope)], [["probe.movimientos.consultar", "consultar_scope"]])
    }))

  it.effect("a connector that requires a connection has only connected tools, and only such a connector has them", () =>
    rejects([probe(act("probe.cuentas.consultar", { scope: "cuentas" })), family(conn("notes_get"))], [
      ["probe.cuentas.consultar", "connection_typed"],
      ["notes_get", "connection_typed"]
    ]))

  it.effect("the Brein catalog is action plane only", () =>
    rejects([family(rd("market_sync"))], [["market_sync", "connection_typed"], ["market_sync", "catalog_is_action"]]))

  it.effect("readOnly ⇒ not destructive", () =>
    rejects([family(act("notes_purge", { hints: { ...pure, destructive: true } }))], [["notes_purge", "readonly_not_destructive"]]))

  it.effect("credits ⇒ level 2 and a quote", () =>
    rejects([
      family(
        act("people_reveal", { cost: { kind: "credits", unit: "contact", unitPrice: 2 }, level: 1, quote: () => 1 }),
        act("company_enrich", { cost: { kind: "credits", unit: "company", unitPrice: 1 }, level: 2 }),
        act("people_bulk", { cost: { kind: "credits", unit: "contact", unitPrice: 2 }, level: 2, quote: () => 1, hints: writes })
      )
    ], [
      ["people_reveal", "credits_gate"],
      ["people_reveal", "credits_commit"],
      ["company_enrich", "credits_gate"],
      ["company_enrich", "credits_commit"]
    ]))

  it.effect("credits ⇒ not readOnly: the charge commits with what the call delivers", () =>
    rejects([
      family(act("people_peek", { cost: { kind: "credits", unit: "contact", unitPrice: 2 }, level: 2, quote: () => 1 }))
    ], [["people_peek", "credits_commit"]]))

  it.effect("every stage belt shows at most 20 tools", () =>
    Effect.gen(function* () {
      const onBelt = (n: number) => Array.from({ length: n }, (_, i) => act(`market_tool_${i}`, { stages: ["buscando"] }))
      yield* Registry.make([family(...onBelt(20))])
      const error = yield* rejects([family(...onBelt(21))], [[onBelt(21).map((t) => t.spec.id).join(", "), "belt_size"]])
      assert.include(error.message, `stage "buscando" would show 21 tools (max 20)`)
    }))

  it.effect("an unknown stage smuggled past the types is rejected", () =>
    Effect.gen(function* () {
      const stages = ["buscando", "vendiendo"] as unknown as ReadonlyArray<Stage>
      const error = yield* Effect.flip(Registry.make([family(act("market_search", { stages }))]))
      const rules = error.violations.filter((v) => v.tool === "market_search").map((v) => v.rule)
      assert.include(rules, "known_stage")
      assert.include(error.message, `market_search [known_stage]: unknown stage "vendiendo"`)
    }))
})

describe("call policy", () => {
  const hints = (readOnly: boolean) => ({ ...pure, readOnly })
  const costs: ReadonlyArray<Cost> = [{ kind: "free" }, { kind: "read" }, { kind: "credits", unit: "contact", unitPrice: 2 }]
  it("is derived from plane, readOnly and cost, for every combination", () => {
    const table = (["action", "read"] as const).flatMap((plane) =>
      [true, false].flatMap((readOnly) =>
        costs.map((cost) => [plane, readOnly, cost.kind, policyOf({ plane, hints: hints(readOnly), cost })])
      )
    )
    assert.deepStrictEqual(table, [
      ["action", true, "free", "pure"],
      ["action", true, "read", "spends"],
      ["action", true, "credits", "spends"],
      ["action", false, "free", "writes"],
      ["action", false, "read", "writes"],
      ["action", false, "credits", "writes"],
      ["read", true, "free", "read"],
      ["read", true, "read", "read"],
      ["read", true, "credits", "read"],
      ["read", false, "free", "read"],
      ["read", false, "read", "read"],
      ["read", false, "credits", "read"]
    ])
  })

  it.effect("is the registered tool's, and its public document says it", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make([CoreConnector, probe(), family(act("notes_write", { hints: { ...pure, readOnly: false } }))])
      const policies = Object.fromEntries(registry.tools.map((t) => [t.descriptor.id, [t.policy, t.document.policy]]))
      assert.deepStrictEqual(policies["core.timestamp.now"], ["pure", "pure"])
      assert.deepStrictEqual(policies["probe.items.consultar"], ["pure", "pure"])
      assert.deepStrictEqual(policies["notes_write"], ["writes", "writes"])
      assert.deepStrictEqual(policies["probe.conexion.sincronizar"], ["read", "read"])
    }))
})

const RegistryServices = servicesWith(FixtureRegistry).pipe(Layer.provideMerge(TestDatabase))

layer(RegistryServices)("external: false", (it) => {
  it.effect("in-process tools are left out of registry.external", () =>
    Effect.gen(function* () {
      const registry = yield* Registry
      const external = registry.external.map((t) => t.descriptor.id)
      assert.notInclude(external, "board_peek")
      assert.include(external, "echo.message.reflect")
      assert.include(registry.tools.map((t) => t.descriptor.id), "board_peek")
      assert.strictEqual(external.length, fixtureSources.flatMap((s) => s.tools).length - 1)
    }))

  it.effect("HTTP and MCP callers get ToolNotFound; the library and Luna can call them", () =>
    Effect.gen(function* () {
      const executor = yield* Executor
      const { principal } = yield* issuePrincipal("free")
      for (const surface of ["http", "mcp"] as const) {
        const error = yield* Effect.flip(executor.call("board_peek", {}, callContext(principal, { surface })))
        assert.strictEqual(error._tag, "ToolNotFound")
      }
      for (const surface of ["library", "luna"] as const) {
        const response = yield* executor.call("board_peek", {}, callContext(principal, { surface }))
        assert.deepStrictEqual(response.data, { cards: 0 })
      }
      // a near miss names the tool only to a caller that can reach it
      for (const surface of ["http", "mcp"] as const) {
        const error = yield* Effect.flip(executor.call("board_peak", {}, callContext(principal, { surface })))
        assert.deepInclude(error, { _tag: "ToolNotFound", toolId: "board_peak" })
        assert.notInclude(JSON.stringify(error), "board_peek")
      }
      const inside = yield* Effect.flip(executor.call("board_peak", {}, callContext(principal, { surface: "library" })))
      assert.deepInclude(inside, { _tag: "ToolNotFound", hint: "Did you mean board_peek?" })
    }))
})
