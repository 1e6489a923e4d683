import { Effect } from "effect"
import { EnrichInput, EnrichOutput, RevealInput, RevealOutput } from "../../../schema/catalog/Reveal.ts"
import { creditsAction } from "../../tools/Tool.ts"
import { directoryLoaded } from "./Directory.ts"
import { Owned } from "./Owned.ts"

const PER_CONTACT = 2
const PER_COMPANY = 1
const spends = { readOnly: false, destructive: false, idempotent: true, openWorld: false } as const
const average = (total: number, n: number) => (n === 0 ? 0 : Math.round((total / n) * 100) / 100)
const count = <A extends { readonly status: string }>(items: ReadonlyArray<A>, status: A["status"]) =>
  items.filter((item) => item.status === status).length

export const peopleReveal = creditsAction({
  id: "people_reveal",
  aggregate: true,
  family: "empresas",
  label: "Revelar contactos",
  description: `Reveals the work email and phone of people from people_search: ${PER_CONTACT} credits per contact delivered. ` +
    "Called without confirm it answers a quote (free, changes nothing); with confirm: true, the quote_token and an idempotency_key it reveals " +
    "and charges only what it delivered: people already revealed by this workspace and people without contact data cost nothing.",
  plan: "paid",
  hints: spends,
  cost: { kind: "credits", unit: "contact", unitPrice: PER_CONTACT },
  level: 2,
  stages: ["prospectando", "con_lista"],
  input: RevealInput,
  output: RevealOutput,
  quoteItems: (input, ctx) =>
    Effect.gen(function* () {
      yield* directoryLoaded
      const found = new Map((yield* (yield* Owned).people(ctx.principal, input.person_ids)).map((p) => [p.id, p]))
      return input.person_ids.map((id) => {
        const person = found.get(id)
        if (person === undefined) return { id, label: id, status: "not_found" as const }
        const label = `${person.fullName} · ${person.title}`
        if (person.owned) return { id, label, status: "already_owned" as const }
        return { id, label, status: person.email === null && person.phone === null ? "no_data" as const : "chargeable" as const }
      })
    }),
  delivered: (answer) => answer.revealed,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* directoryLoaded
      const owned = yield* Owned
      const found = new Map((yield* owned.people(ctx.principal, input.person_ids)).map((p) => [p.id, p]))
      const wanted = input.person_ids.filter((id) => {
        const person = found.get(id)
        return person !== undefined && !person.owned && (person.email !== null || person.phone !== null)
      })
      const revealed = yield* owned.reveal(ctx.principal, wanted, ctx.requestId)
      const people = input.person_ids.map((id) => {
        const person = found.get(id)
        const status = person === undefined
          ? "not_found" as const
          : person.email === null && person.phone === null
          ? "no_contact_data" as const
          : revealed.has(id)
          ? "revealed" as const
          : "already_owned" as const
        return {
          person_id: id,
          status,
          full_name: person?.fullName ?? null,
          company_id: person?.companyId ?? null,
          email: person?.email ?? null,
          phone: person?.phone ?? null,
          credits: status === "revealed" ? PER_CONTACT : 0
        }
      })
      const total = people.reduce((sum, p) => sum + p.credits, 0)
      const missing = [
        ...(count(people, "no_contact_data") > 0 ? [`${count(people, "no_contact_data")} had no contact data`] : []),
        ...(count(people, "not_found") > 0 ? [`${count(people, "not_found")} no such person`] : [])
      ]
      if (missing.length > 0) yield* ctx.annotate({ warnings: [`of ${people.length} asked, ${missing.join(" and ")}: not charged`] })
      return {
        ref: `people_reveal:${ctx.requestId}`,
        people,
        revealed: count(people, "revealed"),
        already_owned: count(people, "already_owned"),
        no_contact_data: count(people, "no_contact_data"),
        not_found: count(people, "not_found"),
        credits_total: total,
        credits_average: average(total, people.length)
      }
    })
})

export const companyEnrich = creditsAction({
  id: "company_enrich",
  aggregate: true,
  family: "empresas",
  label: "Enriquecer empresas",
  description:
    `Adds revenue estimate, phone, LinkedIn and exact headcount to companies from companies_search: ${PER_COMPANY} credit per company ` +
    "enriched. Without confirm it answers a quote (free); with confirm: true, the quote_token and an idempotency_key it enriches and charges " +
    "only what it delivered: companies this workspace enriched before and unknown ids cost nothing.",
  plan: "paid",
  hints: spends,
  cost: { kind: "credits", unit: "company", unitPrice: PER_COMPANY },
  level: 2,
  stages: ["prospectando", "con_lista"],
  input: EnrichInput,
  output: EnrichOutput,
  quoteItems: (input, ctx) =>
    Effect.gen(function* () {
      yield* directoryLoaded
      const found = new Map((yield* (yield* Owned).companies(ctx.principal, input.company_ids)).map((c) => [c.id, c]))
      return input.company_ids.map((id) => {
        const company = found.get(id)
        if (company === undefined) return { id, label: id, status: "not_found" as const }
        return { id, label: company.legalName, status: company.owned ? "already_owned" as const : "chargeable" as const }
      })
    }),
  delivered: (answer) => answer.enriched,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      yield* directoryLoaded
      const owned = yield* Owned
      const found = new Map((yield* owned.companies(ctx.principal, input.company_ids)).map((c) => [c.id, c]))
      const enriched = yield* owned.enrich(ctx.principal, input.company_ids.filter((id) => found.get(id)?.owned === false), ctx.requestId)
      const companies = input.company_ids.map((id) => {
        const company = found.get(id)
        const status = company === undefined ? "not_found" as const : enriched.has(id) ? "enriched" as const : "already_owned" as const
        return {
          company_id: id,
          status,
          legal_name: company?.legalName ?? null,
          revenue_estimate_usd: company?.revenueEstimate ?? null,
          employees: company?.employees ?? null,
          phone: company?.phone ?? null,
          linkedin_url: company?.linkedinUrl ?? null,
          credits: status === "enriched" ? PER_COMPANY : 0
        }
      })
      const withRevenue = companies.filter((c) => c.revenue_estimate_usd !== null)
      const revenue = withRevenue.reduce((sum, c) => sum + (c.revenue_estimate_usd ?? 0), 0)
      const total = companies.reduce((sum, c) => sum + c.credits, 0)
      return {
        ref: `company_enrich:${ctx.requestId}`,
        companies,
        enriched: count(companies, "enriched"),
        already_owned: count(companies, "already_owned"),
        not_found: count(companies, "not_found"),
        credits_total: total,
        credits_average: average(total, companies.length),
        revenue_total_usd: revenue,
        revenue_average_usd: average(revenue, withRevenue.length)
      }
    })
})
