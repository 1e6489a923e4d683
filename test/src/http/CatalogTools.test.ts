import { assert, layer } from "@effect/vitest"
import { ProtocolError } from "@modelcontextprotocol/client"
import { Effect, Option, Redacted, Schema } from "effect"
import { Quote } from "../../../schema/budget/Budget.ts"
import { RevealOutput } from "../../../schema/catalog/Reveal.ts"
import { ToolId } from "../../../schema/Ids.ts"
import type { Stage } from "../../../schema/tools/Definition.ts"
import { ToolResponse } from "../../../schema/tools/Response.ts"
import { Registry } from "../../../services/tools/Registry.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { insertCompany, insertPerson } from "../../services/catalog/Directory.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { bearer, callTool, callToolFailure, connect, ERAS, listTools } from "../mcp/McpTestServer.ts"
import { apiClient, HttpTest } from "./TestServer.ts"

const pure = { readOnly: true, destructive: false, idempotent: true, openWorld: false }
const spends = { readOnly: false, destructive: false, idempotent: true, openWorld: false }
const ALL: ReadonlyArray<Stage> = ["buscando", "prospectando", "con_lista"]

/** The catalog tools as declared: what the registry and the HTTP listing must say of each. */
const declared = {
  usage: { plan: "free", hints: pure, cost: { kind: "free" }, level: 0, stages: ALL, external: true, quoted: false, policy: "pure" },
  account_get: { plan: "free", hints: pure, cost: { kind: "free" }, level: 0, stages: [], external: true, quoted: false, policy: "pure" },
  people_reveal: {
    plan: "paid",
    hints: spends,
    cost: { kind: "credits", unit: "contact", unitPrice: 2 },
    level: 2,
    stages: ["prospectando", "con_lista"],
    external: true,
    quoted: true,
    policy: "writes"
  },
  company_enrich: {
    plan: "paid",
    hints: spends,
    cost: { kind: "credits", unit: "company", unitPrice: 1 },
    level: 2,
    stages: ["prospectando", "con_lista"],
    external: true,
    quoted: true,
    policy: "writes"
  },
  board_read: { plan: "free", hints: pure, cost: { kind: "free" }, level: 0, stages: ALL, external: false, quoted: false, policy: "pure" },
  selection_update: {
    plan: "free",
    hints: spends,
    cost: { kind: "free" },
    level: 0,
    stages: ["buscando", "con_lista"],
    external: false,
    quoted: false,
    policy: "writes"
  }
} as const

const SESSION_TOOLS = ["board_read", "selection_update"]

const paidKey = Effect.flatMap(Workspaces, (w) => w.issueKey({ workspace: uniqueName("paid"), plan: Option.some("paid") })).pipe(
  Effect.map((issued) => issued.key)
)

layer(HttpTest, { excludeTestServices: true })("the catalog tools in the registry and on the surfaces", (it) => {
  it.effect("each catalog tool has its four hints explicit, its stages, level, cost, plan and policy as declared", () =>
    Effect.gen(function* () {
      const registry = yield* Registry
      for (const [id, expected] of Object.entries(declared)) {
        const tool = Option.getOrThrowWith(registry.get(ToolId.make(id)), () => new Error(`${id} is not registered`))
        const d = tool.descriptor
        assert.hasAllKeys(d.hints, ["readOnly", "destructive", "idempotent", "openWorld"], id)
        assert.isTrue(Object.values(d.hints).every((hint) => typeof hint === "boolean"), id)
        assert.deepStrictEqual(
          {
            plan: d.plan,
            hints: d.hints,
            cost: d.cost,
            level: d.level,
            stages: d.stages,
            external: d.external,
            quoted: d.quoted,
            policy: tool.policy
          },
          expected,
          id
        )
        assert.strictEqual(d.plane, "action", id)
        assert.strictEqual(d.connector, null, id)
        assert.isFalse(tool.requiresConnection, id)
      }
    }))

  it.effect("GET /api/v1/tools lists the external catalog tools as declared and none of the session tools", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(Option.none())
      const { tools } = yield* client.tools.list()
      const ids = tools.map((t) => t.id)
      for (const id of SESSION_TOOLS) assert.notInclude(ids, id)
      for (const [id, expected] of Object.entries(declared)) {
        if (!expected.external) continue
        const listed = tools.find((t) => t.id === id)
        assert.isDefined(listed, id)
        if (listed === undefined) continue
        const { external: _e, ...shown } = expected
        assert.deepStrictEqual(
          {
            plan: listed.plan,
            hints: listed.hints,
            cost: listed.cost,
            level: listed.level,
            stages: listed.stages,
            quoted: listed.quoted,
            policy: listed.policy
          },
          shown,
          id
        )
      }
    }))

  it.effect("GET /api/v1/tools/people_reveal shows the writes policy and an input schema with the budget fields", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(Option.none())
      const tool = yield* client.tools.get({ path: { id: "people_reveal" } })
      assert.strictEqual(tool.policy, "writes")
      assert.deepInclude(tool, { level: 2, quoted: true, plan: "paid", requiresConnection: false })
      const properties = tool.inputSchema["properties"]
      assert.hasAllKeys(properties, ["person_ids", "confirm", "quote_token", "idempotency_key"])
      assert.deepStrictEqual(tool.inputSchema["required"], ["person_ids"])
      const enrich = yield* client.tools.get({ path: { id: "company_enrich" } })
      assert.hasAllKeys(enrich.inputSchema["properties"], ["company_ids", "confirm", "quote_token", "idempotency_key"])
    }))

  it.effect("the session tools are not callable over HTTP: GET and execute answer ToolNotFound, even with a session-like input", () =>
    Effect.gen(function* () {
      const client = yield* apiClient(Option.some(yield* paidKey))
      for (const id of SESSION_TOOLS) {
        const got = yield* Effect.flip(client.tools.get({ path: { id } }))
        assert.strictEqual(got._tag, "ToolNotFound", id)
        const input = id === "board_read" ? {} : { ids: ["co_a"] }
        const ran = yield* Effect.flip(client.tools.execute({ path: { id }, payload: { input }, headers: {} }))
        assert.strictEqual(ran._tag, "ToolNotFound", id)
      }
    }))

  for (const era of ERAS) {
    it.scoped(`${era}: MCP tools/list has the catalog's external tools and not the session tools, which cannot be called`, () =>
      Effect.gen(function* () {
        const client = yield* connect(era, bearer(Redacted.value(yield* paidKey)))
        const names = (yield* listTools(client)).map((t) => t.name)
        for (const id of ["usage", "account_get", "people_reveal", "company_enrich"]) assert.include(names, id)
        for (const id of SESSION_TOOLS) {
          assert.notInclude(names, id)
          const error = yield* callToolFailure(client, id, {})
          const protocol = error.error instanceof ProtocolError ? error.error : null
          assert.strictEqual(protocol?.code, -32602, id)
          assert.deepInclude(protocol?.data, { _tag: "ToolNotFound", toolId: id })
        }
      }))

    it.scoped(`${era}: people_reveal quotes and executes over MCP, its structured content the envelope with cost`, () =>
      Effect.gen(function* () {
        const company = yield* insertCompany()
        const person = yield* insertPerson(company.id, { email: "mcp@example.cl", phone: null })
        const client = yield* connect(era, bearer(Redacted.value(yield* paidKey)))
        yield* listTools(client)
        const quoted = yield* callTool(client, "people_reveal", { person_ids: [person.id] })
        assert.notStrictEqual(quoted.isError, true)
        const quote = yield* Schema.decodeUnknown(Quote)((yield* Schema.decodeUnknown(ToolResponse)(quoted.structuredContent)).data)
        assert.strictEqual(quote.total, 2)
        const done = yield* callTool(client, "people_reveal", {
          person_ids: [person.id],
          confirm: true,
          quote_token: quote.quote_token,
          idempotency_key: `mcp_${era}_${person.id}`
        })
        assert.notStrictEqual(done.isError, true)
        const response = yield* Schema.decodeUnknown(ToolResponse)(done.structuredContent)
        assert.deepInclude(response.cost, { kind: "credits", credits: 2, balance_after: 158, replayed: false })
        assert.strictEqual((yield* Schema.decodeUnknown(RevealOutput)(response.data)).people[0]?.email, "mcp@example.cl")
      }))
  }
})
