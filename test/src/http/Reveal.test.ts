import { HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted, Schema } from "effect"
import { GrantReason, Quote } from "../../../schema/budget/Budget.ts"
import { EnrichOutput, RevealOutput } from "../../../schema/catalog/Reveal.ts"
import type { Plan } from "../../../schema/tools/Definition.ts"
import { Credits } from "../../../services/budget/Credits.ts"
import { Workspaces } from "../../../services/workspace/Workspaces.ts"
import { enrichedBy, insertCompany, insertPerson, revealedBy } from "../../services/catalog/Directory.ts"
import { uniqueName } from "../../support/TestLayers.ts"
import { apiClient, HttpTest, rawRequest } from "./TestServer.ts"

const decodeQuote = Schema.decodeUnknown(Quote)
const decodeReveal = Schema.decodeUnknown(RevealOutput)
const decodeEnrich = Schema.decodeUnknown(EnrichOutput)
const ErrorBody = Schema.parseJson(Schema.Struct({ _tag: Schema.String, message: Schema.String }, {
  key: Schema.String,
  value: Schema.Unknown
}))

/** A new workspace on `plan`: its typed client, its key and its principal. */
const workspace = (plan: Plan) =>
  Effect.gen(function* () {
    const workspaces = yield* Workspaces
    const issued = yield* workspaces.issueKey({ workspace: uniqueName(plan), plan: Option.some(plan) })
    const principal = yield* Effect.orDie(workspaces.authenticate(Redacted.value(issued.key)))
    const client = yield* apiClient(Option.some(issued.key))
    const execute = (id: string, input: unknown) => client.tools.execute({ path: { id }, payload: { input }, headers: {} })
    return { key: issued.key, principal, client, execute }
  })

const idempotencyKey = () => uniqueName("key").replace("-", "_")

layer(HttpTest, { excludeTestServices: true })("people_reveal and company_enrich over HTTP", (it) => {
  it.effect("people_reveal quotes, reveals and charges 2 per person revealed; asked again it is already owned and free", () =>
    Effect.gen(function* () {
      const company = yield* insertCompany()
      const withEmail = yield* insertPerson(company.id, { email: "ana@example.cl", phone: null })
      const withBoth = yield* insertPerson(company.id, { email: "luis@example.cl", phone: "+56 9 1234 5678" })
      const unreachable = yield* insertPerson(company.id, { email: null, phone: null })
      const ghost = "pe_doesnotexist"
      const ids = [withEmail.id, withBoth.id, unreachable.id, ghost]
      const mine = yield* workspace("paid")

      const quoted = yield* mine.execute("people_reveal", { person_ids: ids })
      const quote = yield* decodeQuote(quoted.data)
      assert.deepStrictEqual(quote.items.map((item) => [item.id, item.status, item.unit_cost]), [
        [withEmail.id, "chargeable", 2],
        [withBoth.id, "chargeable", 2],
        [unreachable.id, "no_data", 0],
        [ghost, "not_found", 0]
      ])
      assert.deepInclude(quote, { tool: "people_reveal", unit: "contact", unit_price: 2, total: 4, balance_before: 160 })
      assert.strictEqual(quote.balance_after, 156)
      assert.isTrue(quote.affordable)
      assert.isUndefined(quoted.cost, "a quote spends nothing")
      assert.include(quoted.hint ?? "", "confirm: true")
      assert.deepStrictEqual(yield* revealedBy(mine.principal.workspaceId), [], "a quote reveals nothing")

      const confirmed = yield* mine.execute("people_reveal", {
        person_ids: ids,
        confirm: true,
        quote_token: quote.quote_token,
        idempotency_key: idempotencyKey()
      })
      const answer = yield* decodeReveal(confirmed.data)
      assert.deepStrictEqual(answer.people.map((p) => [p.person_id, p.status, p.email, p.phone, p.credits]), [
        [withEmail.id, "revealed", "ana@example.cl", null, 2],
        [withBoth.id, "revealed", "luis@example.cl", "+56 9 1234 5678", 2],
        [unreachable.id, "no_contact_data", null, null, 0],
        [ghost, "not_found", null, null, 0]
      ])
      assert.deepInclude(answer, {
        revealed: 2,
        already_owned: 0,
        no_contact_data: 1,
        not_found: 1,
        credits_total: 4,
        credits_average: 1
      })
      assert.strictEqual(answer.people[0]?.full_name, withEmail.fullName)
      assert.strictEqual(answer.people[0]?.company_id, company.id)
      assert.deepStrictEqual(confirmed.cost, {
        kind: "credits",
        credits: 4,
        unit: "contact",
        unit_price: 2,
        delivered: 2,
        balance_after: 156,
        quote_id: quote.quote_id,
        replayed: false
      })
      assert.deepStrictEqual(confirmed.warnings, ["of 4 asked, 1 had no contact data and 1 no such person: not charged"])
      const rows = yield* revealedBy(mine.principal.workspaceId)
      assert.deepStrictEqual(rows.map((r) => r.personId), [withEmail.id, withBoth.id].sort())
      for (const row of rows) assert.strictEqual(row.requestId, confirmed.meta.request_id)

      const again = yield* decodeQuote((yield* mine.execute("people_reveal", { person_ids: [withEmail.id, withBoth.id] })).data)
      assert.deepStrictEqual(again.items.map((item) => [item.status, item.unit_cost]), [["already_owned", 0], ["already_owned", 0]])
      assert.deepInclude(again, { total: 0, balance_before: 156, balance_after: 156 })
      const owned = yield* mine.execute("people_reveal", {
        person_ids: [withEmail.id, withBoth.id],
        confirm: true,
        quote_token: again.quote_token,
        idempotency_key: idempotencyKey()
      })
      const ownedAnswer = yield* decodeReveal(owned.data)
      assert.deepStrictEqual(ownedAnswer.people.map((p) => [p.status, p.email, p.credits]), [
        ["already_owned", "ana@example.cl", 0],
        ["already_owned", "luis@example.cl", 0]
      ])
      assert.deepInclude(owned.cost, { credits: 0, delivered: 0, balance_after: 156, replayed: false })
      assert.strictEqual((yield* mine.client.account.usage({ urlParams: {} })).credits.balance, 156)
    }))

  it.effect("another workspace cannot execute a quote; its own quote of the same people charges it in full", () =>
    Effect.gen(function* () {
      const company = yield* insertCompany()
      const person = yield* insertPerson(company.id, { email: "eva@example.cl", phone: null })
      const mine = yield* workspace("paid")
      const theirs = yield* workspace("paid")
      const quote = yield* decodeQuote((yield* mine.execute("people_reveal", { person_ids: [person.id] })).data)
      const key = idempotencyKey()
      const refused = yield* Effect.flip(theirs.execute("people_reveal", {
        person_ids: [person.id],
        confirm: true,
        quote_token: quote.quote_token,
        idempotency_key: key
      }))
      assert.strictEqual(refused._tag, "QuoteRefused")
      if (refused._tag === "QuoteRefused") assert.strictEqual(refused.reason, "unknown")
      assert.deepStrictEqual(yield* revealedBy(theirs.principal.workspaceId), [])
      assert.strictEqual((yield* theirs.client.account.usage({ urlParams: {} })).credits.balance, 160)

      // the refused call claimed nothing: its key still answers a real execution
      const own = yield* decodeQuote((yield* theirs.execute("people_reveal", { person_ids: [person.id] })).data)
      const done = yield* theirs.execute("people_reveal", {
        person_ids: [person.id],
        confirm: true,
        quote_token: own.quote_token,
        idempotency_key: key
      })
      assert.strictEqual((yield* decodeReveal(done.data)).people[0]?.status, "revealed")
      assert.deepInclude(done.cost, { credits: 2, balance_after: 158, replayed: false })
      // and the quote's owner can still execute it
      const first = yield* mine.execute("people_reveal", {
        person_ids: [person.id],
        confirm: true,
        quote_token: quote.quote_token,
        idempotency_key: idempotencyKey()
      })
      assert.deepInclude(first.cost, { credits: 2, balance_after: 158 })
    }))

  it.effect("bad person_ids are 422 InvalidInput and a free workspace is Forbidden plan_required", () =>
    Effect.gen(function* () {
      const company = yield* insertCompany()
      const person = yield* insertPerson(company.id, { email: "x@example.cl", phone: null })
      const mine = yield* workspace("paid")
      const post = (input: unknown) =>
        rawRequest(
          HttpClientRequest.post("/api/v1/tools/people_reveal/execute").pipe(
            HttpClientRequest.bearerToken(Redacted.value(mine.key)),
            HttpClientRequest.bodyText(JSON.stringify({ input }), "application/json")
          )
        )
      const many = Array.from({ length: 101 }, (_, i) => `pe_n${i}`)
      for (
        const [label, input] of [
          ["empty", { person_ids: [] }],
          ["duplicate", { person_ids: [person.id, person.id] }],
          ["malformed", { person_ids: ["co_notaperson"] }],
          ["more than 100", { person_ids: many }],
          ["missing", {}]
        ] as const
      ) {
        const response = yield* post(input)
        assert.strictEqual(response.status, 422, label)
        assert.strictEqual((yield* Schema.decodeUnknown(ErrorBody)(response.text))._tag, "InvalidInput", label)
      }
      const duplicate = yield* post({ person_ids: [person.id, person.id] })
      assert.include(duplicate.text, "lists a person twice")
      const malformed = yield* post({ person_ids: ["co_notaperson"] })
      assert.include(malformed.text, "must be a person id (pe_")
      assert.deepStrictEqual(yield* revealedBy(mine.principal.workspaceId), [])

      const free = yield* workspace("free")
      for (const input of [{ person_ids: [person.id] }, { company_ids: [company.id] }]) {
        const id = "person_ids" in input ? "people_reveal" : "company_enrich"
        const refused = yield* Effect.flip(free.execute(id, input))
        assert.strictEqual(refused._tag, "Forbidden", id)
        if (refused._tag === "Forbidden") assert.strictEqual(refused.reason, "plan_required", id)
      }
    }))

  it.effect("confirm: true without its quote_token or idempotency_key is 422 InvalidInput with the hint of what to send", () =>
    Effect.gen(function* () {
      const company = yield* insertCompany()
      const mine = yield* workspace("paid")
      const refusal = (input: Record<string, unknown>) =>
        Effect.flatMap(
          Effect.flip(mine.execute("company_enrich", { company_ids: [company.id], ...input })),
          (refused) =>
            refused._tag === "InvalidInput"
              ? Effect.succeed(refused)
              : Effect.dieMessage(`${refused._tag}: ${refused.message}`)
        )
      const unquoted = yield* refusal({ confirm: true, idempotency_key: idempotencyKey() })
      assert.deepStrictEqual(unquoted.issues.map((issue) => issue.path), ["input.quote_token"])
      assert.strictEqual(
        unquoted.hint,
        "Call company_enrich without confirm first: it answers a quote (what it would deliver, the total, a quote_token " +
          "valid 10 minutes) and changes nothing. Then call it again with the same input plus confirm: true, that quote_token " +
          "and an idempotency_key of your choosing."
      )
      const bare = yield* refusal({ confirm: true })
      assert.strictEqual(bare.hint, unquoted.hint, "without either, the quote comes first")
      const quote = yield* decodeQuote((yield* mine.execute("company_enrich", { company_ids: [company.id] })).data)
      const keyless = yield* refusal({ confirm: true, quote_token: quote.quote_token })
      assert.deepStrictEqual(keyless.issues.map((issue) => issue.path), ["input.idempotency_key"])
      assert.include(keyless.hint ?? "", "Add an idempotency_key of your choosing")
      const misspelt = yield* refusal({ confirm: true, idempotency_key: idempotencyKey(), quote_tokn: quote.quote_token })
      assert.include(misspelt.hint ?? "", "Did you mean quote_token (not quote_tokn)?")
      const typed = yield* refusal({ confirm: true, quote_token: 42, idempotency_key: idempotencyKey() })
      assert.isUndefined(typed.hint, "a quote_token sent but not a string is not said to be missing")
      assert.deepStrictEqual(yield* enrichedBy(mine.principal.workspaceId), [])
    }))

  it.effect("a reveal the balance cannot pay is InsufficientCredits and reveals nothing; the same key answers once credits arrive", () =>
    Effect.gen(function* () {
      const company = yield* insertCompany()
      const people = yield* Effect.forEach(
        Array.from({ length: 81 }, (_, i) => i),
        (i) => insertPerson(company.id, { email: `p${i}@example.cl`, phone: null })
      )
      const ids = people.map((p) => p.id)
      const mine = yield* workspace("paid")
      const quoted = yield* mine.execute("people_reveal", { person_ids: ids })
      const quote = yield* decodeQuote(quoted.data)
      assert.deepInclude(quote, { total: 162, balance_before: 160, affordable: false })
      assert.include(quoted.hint ?? "", "has 160 credits and this needs up to 162")
      const key = idempotencyKey()
      const confirm = { person_ids: ids, confirm: true, quote_token: quote.quote_token, idempotency_key: key }
      const refused = yield* Effect.flip(mine.execute("people_reveal", confirm))
      assert.strictEqual(refused._tag, "InsufficientCredits")
      assert.deepStrictEqual(yield* revealedBy(mine.principal.workspaceId), [], "the reveal rolled back with the charge")
      assert.strictEqual((yield* mine.client.account.usage({ urlParams: {} })).credits.balance, 160)

      // nothing was used up: with credits granted, the same quote and key execute
      const sql = yield* SqlClient.SqlClient
      yield* Effect.flatMap(Credits, (credits) => credits.grant(mine.principal.workspaceId, "paid", 10, GrantReason.make("top up"))).pipe(
        Effect.provide(Credits.Default)
      )
      const paid = yield* mine.execute("people_reveal", confirm)
      assert.strictEqual((yield* decodeReveal(paid.data)).revealed, 81)
      assert.deepInclude(paid.cost, { credits: 162, balance_after: 8, replayed: false })
      const replay = yield* mine.execute("people_reveal", confirm)
      assert.deepStrictEqual(replay.data, paid.data, "the same key answers the first result")
      assert.deepInclude(replay.cost, { credits: 0, balance_after: 8, replayed: true })
      const [charges] = yield* sql<{ n: string }>`SELECT count(*)::text AS n FROM credit_ledger
        WHERE workspace_id = ${mine.principal.workspaceId} AND kind = 'charge'`
      assert.strictEqual(charges?.n, "1")
    }))

  it.effect("company_enrich quotes, enriches and charges 1 per company enriched, with the revenue total and average", () =>
    Effect.gen(function* () {
      const first = yield* insertCompany({ revenue: 1_000_000, employees: 12, phone: "+56 2 1111 1111" })
      const second = yield* insertCompany({ revenue: 3_000_001, employees: 80, phone: null, linkedin: null })
      const ghost = "co_doesnotexist"
      const mine = yield* workspace("paid")
      const ids = [first.id, second.id, ghost]

      const quote = yield* decodeQuote((yield* mine.execute("company_enrich", { company_ids: ids })).data)
      assert.deepStrictEqual(quote.items.map((item) => [item.id, item.label, item.status, item.unit_cost]), [
        [first.id, first.legalName, "chargeable", 1],
        [second.id, second.legalName, "chargeable", 1],
        [ghost, ghost, "not_found", 0]
      ])
      assert.deepInclude(quote, { unit: "company", unit_price: 1, total: 2, balance_before: 160, balance_after: 158 })

      const confirmed = yield* mine.execute("company_enrich", {
        company_ids: ids,
        confirm: true,
        quote_token: quote.quote_token,
        idempotency_key: idempotencyKey()
      })
      const answer = yield* decodeEnrich(confirmed.data)
      assert.deepStrictEqual(
        answer.companies.map((c) => [c.company_id, c.status, c.revenue_estimate_usd, c.employees, c.phone, c.credits]),
        [
          [first.id, "enriched", 1_000_000, 12, "+56 2 1111 1111", 1],
          [second.id, "enriched", 3_000_001, 80, null, 1],
          [ghost, "not_found", null, null, null, 0]
        ]
      )
      assert.strictEqual(answer.companies[0]?.linkedin_url, first.linkedin)
      assert.deepInclude(answer, {
        enriched: 2,
        already_owned: 0,
        not_found: 1,
        credits_total: 2,
        credits_average: 0.67,
        revenue_total_usd: 4_000_001,
        revenue_average_usd: 2_000_000.5
      })
      assert.deepInclude(confirmed.cost, { kind: "credits", credits: 2, unit: "company", delivered: 2, balance_after: 158 })
      assert.deepStrictEqual((yield* enrichedBy(mine.principal.workspaceId)).map((r) => r.companyId), [first.id, second.id].sort())

      const again = yield* decodeQuote((yield* mine.execute("company_enrich", { company_ids: [first.id] })).data)
      assert.deepStrictEqual(again.items.map((item) => item.status), ["already_owned"])
      assert.strictEqual(again.total, 0)
      const owned = yield* mine.execute("company_enrich", {
        company_ids: [first.id],
        confirm: true,
        quote_token: again.quote_token,
        idempotency_key: idempotencyKey()
      })
      const ownedAnswer = yield* decodeEnrich(owned.data)
      assert.deepStrictEqual(ownedAnswer.companies.map((c) => [c.status, c.revenue_estimate_usd, c.credits]), [[
        "already_owned",
        1_000_000,
        0
      ]])
      assert.deepInclude(owned.cost, { credits: 0, balance_after: 158 })
    }))

  it.effect("company_enrich sums revenue in US dollars across Chile and Mexico; bad company_ids are InvalidInput", () =>
    Effect.gen(function* () {
      const chile = yield* insertCompany({ country: "CL", revenue: 500 })
      const mexico = yield* insertCompany({ country: "MX", revenue: 700 })
      const mine = yield* workspace("paid")
      const ids = [chile.id, mexico.id]
      const quote = yield* decodeQuote((yield* mine.execute("company_enrich", { company_ids: ids })).data)
      const confirmed = yield* mine.execute("company_enrich", {
        company_ids: ids,
        confirm: true,
        quote_token: quote.quote_token,
        idempotency_key: idempotencyKey()
      })
      const answer = yield* decodeEnrich(confirmed.data)
      assert.deepStrictEqual(answer.companies.map((c) => c.revenue_estimate_usd), [500, 700])
      assert.deepInclude(answer, { revenue_total_usd: 1200, revenue_average_usd: 600, credits_total: 2 })
      assert.isUndefined(confirmed.warnings)

      for (const company_ids of [[], [chile.id, chile.id], ["pe_notacompany"], Array.from({ length: 101 }, (_, i) => `co_n${i}`)]) {
        const refused = yield* Effect.flip(mine.execute("company_enrich", { company_ids }))
        assert.strictEqual(refused._tag, "InvalidInput", JSON.stringify(company_ids).slice(0, 60))
      }
    }))
})
