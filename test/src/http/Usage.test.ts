import { HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { Quote, Usage } from "../../../schema/budget/Budget.ts"
import { AccountOutput } from "../../../schema/catalog/Cuenta.ts"
import type { Plan } from "../../../schema/tools/Definition.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { insertCompany, insertPerson } from "../../services/catalog/Directory.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { apiClient, HttpTest, rawRequest } from "./TestServer.ts"

const decodeUsage = Schema.decodeUnknown(Usage)
const decodeAccount = Schema.decodeUnknown(AccountOutput)
const decodeQuote = Schema.decodeUnknown(Quote)
const ErrorBody = Schema.parseJson(Schema.Struct({ _tag: Schema.String }, { key: Schema.String, value: Schema.Unknown }))

const workspace = (plan: Plan) =>
  Effect.gen(function* () {
    const workspaces = yield* Workspaces
    const issued = yield* workspaces.issueKey({ workspace: uniqueName(plan), plan: Option.some(plan) })
    const principal = yield* Effect.orDie(workspaces.authenticate(Redacted.value(issued.key)))
    const client = yield* apiClient(Option.some(issued.key))
    const execute = (id: string, input: unknown, headers: { readonly "x-connect-connection"?: string } = {}) =>
      client.tools.execute({ path: { id }, payload: { input }, headers })
    return { key: issued.key, principal, client, execute }
  })

type Workspace = Effect.Effect.Success<ReturnType<typeof workspace>>

/** Quotes and executes a credits tool; answers the executed call's response. */
const spend = (ws: Workspace, id: string, input: Record<string, unknown>) =>
  Effect.gen(function* () {
    const quote = yield* decodeQuote((yield* ws.execute(id, input)).data)
    return yield* ws.execute(id, {
      ...input,
      confirm: true,
      quote_token: quote.quote_token,
      idempotency_key: `k_${randomBytes(6).toString("hex")}`
    })
  })

const usagePath = (query: string, key: Option.Option<Redacted.Redacted<string>>) =>
  rawRequest(
    Option.match(key, {
      onNone: () => HttpClientRequest.get(`/api/v1/usage${query}`),
      onSome: (k) => HttpClientRequest.get(`/api/v1/usage${query}`).pipe(HttpClientRequest.bearerToken(Redacted.value(k)))
    })
  )

layer(HttpTest, { excludeTestServices: true })("usage, account_get and GET /api/v1/usage", (it) => {
  it.effect("a new paid workspace opens with 160 credits, one opening entry and no reads; the tool and the endpoint agree", () =>
    Effect.gen(function* () {
      const mine = yield* workspace("paid")
      const fromEndpoint = yield* mine.client.account.usage({ urlParams: {} })
      assert.deepStrictEqual(fromEndpoint.credits.recent.map((e) => [e.kind, e.delta, e.balance_after, e.reason, e.tool_id]), [
        ["opening", 160, 160, "opening balance of the paid plan", null]
      ])
      assert.deepInclude(fromEndpoint.credits, { balance: 160, granted_total: 160, spent_total: 0, charges: 0, average_charge: 0 })
      assert.deepStrictEqual(fromEndpoint.reads, { used: 0, limit: 1000, remaining: 1000, window: "1h", resets_at: null })
      assert.deepInclude(fromEndpoint, { workspace: mine.principal.workspaceName, plan: "paid" })

      const viaTool = yield* mine.execute("usage", {})
      const fromTool = yield* decodeUsage(viaTool.data)
      assert.deepStrictEqual(fromTool.credits, fromEndpoint.credits)
      assert.deepStrictEqual(fromTool.reads, fromEndpoint.reads)
      assert.isUndefined(viaTool.hint)
      assert.isUndefined(viaTool.cost, "usage is free")

      const account = yield* decodeAccount((yield* mine.execute("account_get", {})).data)
      assert.deepStrictEqual(account.workspace, { id: mine.principal.workspaceId, name: mine.principal.workspaceName, plan: "paid" })
      assert.deepStrictEqual(account.limits, { reads_per_hour: 1000, opening_credits: 160, quote_minutes: 10 })
      assert.strictEqual(account.credits_balance, 160)
      assert.deepStrictEqual(account.connectors, [])
      assert.strictEqual(account.reads.used, 0)
    }))

  it.effect("after two charges the ledger shows them newest first, with totals and the average charge", () =>
    Effect.gen(function* () {
      const mine = yield* workspace("paid")
      const companies = [yield* insertCompany(), yield* insertCompany(), yield* insertCompany()]
      const person = yield* insertPerson(companies[0]?.id ?? "", { email: "c@example.cl", phone: null })
      yield* spend(mine, "company_enrich", { company_ids: companies.map((c) => c.id) })
      yield* spend(mine, "people_reveal", { person_ids: [person.id] })

      const usage = yield* mine.client.account.usage({ urlParams: { recent: 2 } })
      assert.deepInclude(usage.credits, { balance: 155, granted_total: 160, spent_total: 5, charges: 2, average_charge: 2.5 })
      assert.deepStrictEqual(usage.credits.recent.map((e) => [e.kind, e.delta, e.balance_after, e.tool_id, e.reason]), [
        ["charge", -2, 155, "people_reveal", "people_reveal: delivered 1 × contact, 2 credits each"],
        ["charge", -3, 157, "company_enrich", "company_enrich: delivered 3 × company, 1 credit each"]
      ])
      const all = yield* mine.client.account.usage({ urlParams: {} })
      assert.deepStrictEqual(all.credits.recent.map((e) => e.kind), ["charge", "charge", "opening"])
      assert.isTrue(all.credits.recent.every((e, i, entries) => i === 0 || (entries[i - 1]?.id ?? 0) > e.id), "newest first")
      const none = yield* mine.client.account.usage({ urlParams: { recent: 0 } })
      assert.deepStrictEqual(none.credits.recent, [])

      const viaTool = yield* decodeUsage((yield* mine.execute("usage", { recent: 1 })).data)
      assert.deepStrictEqual(viaTool.credits.recent.map((e) => e.tool_id), ["people_reveal"])
      assert.strictEqual((yield* decodeAccount((yield* mine.execute("account_get", {})).data)).credits_balance, 155)
    }))

  it.effect("a read-cost call (sii.rcv.consultar on a connection) is counted in the hour's reads and the connection is listed", () =>
    Effect.gen(function* () {
      const mine = yield* workspace("paid")
      const sql = yield* SqlClient.SqlClient
      const connectionId = `conn_${randomBytes(6).toString("hex")}`
      yield* sql`INSERT INTO connections (id, workspace_id, connector) VALUES (${connectionId}, ${mine.principal.workspaceId}, 'sii')`
      const read = yield* mine.execute("sii.rcv.consultar", { periodo: "2025-01", perspectiva: "ventas" }, {
        "x-connect-connection": connectionId
      })
      assert.deepInclude(read.cost, { kind: "read", reads: 1, used: 1, limit: 1000 })

      const usage = yield* mine.client.account.usage({ urlParams: {} })
      assert.deepInclude(usage.reads, { used: 1, limit: 1000, remaining: 999, window: "1h" })
      assert.isNotNull(usage.reads.resets_at)
      assert.strictEqual(usage.credits.balance, 160, "a read spends no credits")
      const account = yield* decodeAccount((yield* mine.execute("account_get", {})).data)
      assert.strictEqual(account.reads.used, 1)
      assert.deepStrictEqual(account.connectors, [{ connector: "sii", connections: 1, states: { pendiente: 1 } }])
    }))

  it.effect("a free workspace has 0 credits and the usage tool says what that means", () =>
    Effect.gen(function* () {
      const mine = yield* workspace("free")
      const viaTool = yield* mine.execute("usage", {})
      const usage = yield* decodeUsage(viaTool.data)
      assert.deepInclude(usage.credits, { balance: 0, granted_total: 0 })
      assert.deepStrictEqual(usage.credits.recent.map((e) => [e.kind, e.delta]), [["opening", 0]])
      assert.strictEqual(usage.reads.limit, 100)
      assert.include(viaTool.hint ?? "", "balance is 0")
      const account = yield* decodeAccount((yield* mine.execute("account_get", {})).data)
      assert.deepStrictEqual(account.limits, { reads_per_hour: 100, opening_credits: 0, quote_minutes: 10 })
    }))

  it.effect("GET /api/v1/usage needs a key (401); recent outside 0–50 or not written in digits is 422; bad tool input is InvalidInput", () =>
    Effect.gen(function* () {
      const mine = yield* workspace("paid")
      assert.strictEqual((yield* usagePath("", Option.none())).status, 401)
      assert.strictEqual((yield* usagePath("", Option.some(mine.key))).status, 200)
      const refusals = [
        ["?recent=99", "recent must be a number between 0 and 50, got 99"],
        ["?recent=abc", "recent must be a whole number written in digits, got \"abc\""],
        ["?recent=-1", "recent must be a number between 0 and 50, got -1"],
        ["?recent=2.5", "recent must be a whole number written in digits, got \"2.5\""],
        // what Number() would read is not what the client wrote
        ["?recent=0x10", "recent must be a whole number written in digits, got \"0x10\""],
        ["?recent=%2B5", "recent must be a whole number written in digits, got \"+5\""],
        ["?recent=1e1", "recent must be a whole number written in digits, got \"1e1\""],
        ["?recent=%205", "recent must be a whole number written in digits, got \" 5\""],
        ["?recent=", "recent must be a whole number written in digits, got \"\""],
        // no safe integer, but what is wrong with it is its size; quoted as written, not as Number() reads it
        ["?recent=99999999999999999999", "recent must be a number between 0 and 50, got 99999999999999999999"],
        ["?recent=9007199254740993", "recent must be a number between 0 and 50, got 9007199254740993"],
        ["?recent=-12345678901234567890123", "recent must be a number between 0 and 50, got -12345678901234567890123"],
        ["?recent=00051", "recent must be a number between 0 and 50, got 00051"],
        // a parameter given twice is read as neither
        ["?recent=5&recent=6", "recent must be given once, got 2 values"],
        // a long one by its start and its length
        [`?recent=${"7".repeat(5_000)}`, "recent must be a number between 0 and 50, got 7777777777777777777… (5,000 characters)"]
      ] as const
      for (const [query, message] of refusals) {
        const response = yield* usagePath(query, Option.some(mine.key))
        assert.strictEqual(response.status, 422, query)
        assert.deepInclude(yield* Schema.decodeUnknown(ErrorBody)(response.text), { _tag: "InvalidInput", message }, query)
      }
      for (const [id, input] of [["usage", { recent: 51 }], ["usage", { recent: "3" }], ["account_get", { extra: 1 }]] as const) {
        const refused = yield* Effect.flip(mine.execute(id, input))
        assert.strictEqual(refused._tag, "InvalidInput", `${id} ${JSON.stringify(input)}`)
      }
    }))
})
