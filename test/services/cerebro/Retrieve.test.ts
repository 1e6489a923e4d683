import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Registry } from "../../../services/tools/Registry.ts"
import { issuePrincipal, ServicesTest } from "../../support/TestLayers.ts"
import { call, create, failure } from "./Support.ts"

interface Found {
  readonly ref: string
  readonly search_id: string
  readonly total: number
  readonly results: ReadonlyArray<{ readonly id: string; readonly ref: string; readonly title: string; readonly snippet: string }>
}

const LONG_BODY = `${"Contexto general del cliente y su historia. ".repeat(20)}La decisión la toma el área de Logística en Santiago. ${
  "Más detalles sobre contratos y plazos. ".repeat(20)
}`

layer(ServicesTest)("Cerebro retrieve", (it) => {
  it.effect("finds topics ignoring case and accents, ranks title matches first, and answers snippets with refs", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const inBody = yield* create(principal, { area: "clientes", title: "Cuenta Andina", body: LONG_BODY })
      const inTitle = yield* create(principal, { area: "procesos", title: "Logística de despachos", body: "Cómo coordinamos." })
      yield* create(principal, { area: "producto", title: "Precios", body: "Lista de precios 2026." })

      const response = yield* call(principal, "context_retrieve", { query: "LOGISTICA" })
      const found = response.data as Found
      assert.strictEqual(found.total, 2)
      assert.deepStrictEqual(found.results.map((r) => r.id), [inTitle.id, inBody.id])
      assert.match(found.search_id, /^srch_/)
      assert.strictEqual(found.ref, `cerebro.search:${found.search_id}`)
      assert.strictEqual(found.results[1]?.ref, `topic:${inBody.id}@v1`)
      const snippet = found.results[1]?.snippet ?? ""
      assert.include(snippet, "Logística en Santiago")
      assert.isAtMost(snippet.length, 200)
      assert.isTrue(snippet.startsWith("…") && snippet.endsWith("…"), snippet)
      assert.deepStrictEqual(response.next_actions?.map((a) => [a.tool, a.input]), [["context_get", { id: inTitle.id }]])

      const accented = (yield* call(principal, "context_retrieve", { query: "lógistica DESPÁCHOS" })).data as Found
      assert.deepStrictEqual(accented.results.map((r) => r.id), [inTitle.id])
    }))

  it.effect("filters by area and tags, bounds limit to 1–50 and counts the total beyond it", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      for (const n of [1, 2, 3]) {
        yield* create(principal, {
          area: "mercado",
          title: `Segmento minería ${n}`,
          body: "Minería del norte.",
          tags: n === 2 ? ["norte"] : []
        })
      }
      yield* create(principal, { area: "clientes", title: "Minera Escondida", body: "Cliente minero." })

      const byArea = yield* call(principal, "context_retrieve", { query: "mineria", area: "mercado", limit: 2 })
      assert.strictEqual((byArea.data as Found).total, 3)
      assert.strictEqual((byArea.data as Found).results.length, 2)
      assert.include(byArea.hint ?? "", "3 topics match")
      const byTag = (yield* call(principal, "context_retrieve", { tags: ["norte"] })).data as Found
      assert.deepStrictEqual(byTag.results.map((r) => r.title), ["Segmento minería 2"])
      const all = (yield* call(principal, "context_retrieve", {})).data as Found
      assert.strictEqual(all.total, 4)

      for (const limit of [0, 51, 2.5]) {
        const error = yield* failure(principal, "context_retrieve", { query: "x", limit })
        assert.strictEqual(error._tag, "InvalidInput")
      }
      const badArea = yield* failure(principal, "context_retrieve", { area: "ventas" })
      assert.strictEqual(badArea._tag, "InvalidInput")

      const none = yield* call(principal, "context_retrieve", { query: "aeroespacial" })
      assert.strictEqual((none.data as Found).total, 0)
      assert.include(none.hint ?? "", "No topic matches")
    }))

  it.effect("never finds another workspace's topics", () =>
    Effect.gen(function* () {
      const mine = yield* issuePrincipal("free")
      const other = yield* issuePrincipal("free")
      yield* create(mine.principal, { title: "Secreto comercial del equipo", body: "Descuento máximo 12%." })
      const theirs = (yield* call(other.principal, "context_retrieve", { query: "descuento maximo" })).data as Found
      assert.strictEqual(theirs.total, 0)
      const listed = (yield* call(other.principal, "context_retrieve", {})).data as Found
      assert.strictEqual(listed.total, 0)
    }))

  it.effect("the four tools are one family with the declared plane, plan, hints, cost, level and stages", () =>
    Effect.gen(function* () {
      const registry = yield* Registry
      const tools = registry.tools.filter((t) => t.descriptor.family === "cerebro").map((t) => t.descriptor)
      assert.deepStrictEqual(tools.map((t) => t.id), ["context_retrieve", "context_get", "context_create", "context_update"])
      for (const t of tools) {
        assert.deepStrictEqual([t.plane, t.plan, t.cost, t.connector, t.external], ["action", "free", { kind: "free" }, null, true])
      }
      const byId = new Map(tools.map((t) => [t.id, t]))
      for (const id of ["context_retrieve", "context_get"]) {
        assert.strictEqual(byId.get(id)?.level, 0)
        assert.deepStrictEqual(byId.get(id)?.stages, ["buscando", "prospectando", "con_lista"])
        assert.deepStrictEqual(byId.get(id)?.hints, { readOnly: true, destructive: false, idempotent: true, openWorld: false })
      }
      for (const id of ["context_create", "context_update"]) {
        assert.strictEqual(byId.get(id)?.level, 1)
        assert.deepStrictEqual(byId.get(id)?.stages, [])
        assert.isFalse(byId.get(id)?.hints.readOnly)
        assert.isFalse(byId.get(id)?.hints.destructive)
      }
      const policies = registry.tools.filter((t) => t.descriptor.family === "cerebro").map((t) => t.policy)
      assert.deepStrictEqual(policies, ["pure", "pure", "writes", "writes"])
    }))
})
