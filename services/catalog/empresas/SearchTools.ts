import { Effect } from "effect"
import {
  CompaniesSearchInput,
  CompaniesSearchOutput,
  Company,
  CompanyGetInput,
  COUNT_CAP,
  PeopleSearchInput,
  PeopleSearchOutput,
  Person,
  PersonGetInput
} from "../../../schema/catalog/Empresas.ts"
import { RecordNotFound } from "../../../schema/Errors.ts"
import type { NextAction } from "../../../schema/tools/Response.ts"
import { action, type CallInfo } from "../../tools/Tool.ts"
import { companySummary, Directory } from "./Directory.ts"
import type { CompanyFilter, PersonFilter } from "./Queries.ts"
import { openSearchCursor, sealSearchCursor, searchIdOf, wordsOf } from "./SearchCursor.ts"

export const FAMILY = "empresas"
export const STAGES = ["prospectando", "con_lista"] as const
const readHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const
// Searching is prospecting: once a list is saved the chat moves to con_lista, where the lists, reveal, enrich and CRM tools are.
const common = { family: FAMILY, plan: "free", hints: readHints, cost: { kind: "read" }, level: 0, stages: ["prospectando"] } as const

/** The fields given (under exactOptionalPropertyTypes an absent filter is left out, never undefined). */
const given = <T extends Record<string, unknown>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> }

/** The page's rows and where the next starts, from `limit + 1` rows read. */
const paged = <A extends { readonly id: string }>(rows: ReadonlyArray<A>, limit: number) => {
  const page = rows.slice(0, limit)
  return { page, last: rows.length > limit ? page[page.length - 1]?.id : undefined }
}

const totalOf = (counted: number) => ({ total: Math.min(counted, COUNT_CAP), total_is_lower_bound: counted > COUNT_CAP })

const annotateSearch = (ctx: CallInfo, what: string, found: number, lowerBound: boolean, next: ReadonlyArray<NextAction>) =>
  ctx.annotate({
    ...(next.length === 0 ? {} : { next_actions: next }),
    ...(found === 0
      ? { hint: `No ${what} match these filters: drop a filter or use fewer words in the query.` }
      : lowerBound
      ? { hint: `More than ${COUNT_CAP.toLocaleString("en-US")} ${what} match: add filters (region, industry, size) to narrow the search.` }
      : {})
  })

export const companiesSearch = action({
  ...common,
  id: "companies_search",
  label: "Buscar empresas",
  description:
    "Search the directory of companies in Chile and Mexico by name (case and accents ignored), country, region or state, industry, size and employees. Pages of up to 100 with a cursor; total counted up to 10,000.",
  input: CompaniesSearchInput,
  output: CompaniesSearchOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const directory = yield* Directory
      yield* directory.loaded()
      const filter: CompanyFilter = {
        words: yield* wordsOf(input.q, "q"),
        ...given({
          country: input.country,
          region: input.region,
          industry: input.industry,
          size: input.size,
          employeesMin: input.employees_min,
          employeesMax: input.employees_max,
          taxId: input.tax_id
        })
      }
      const searchId = searchIdOf("companies_search", filter)
      const search = { toolId: "companies_search", searchId, workspace: ctx.principal.workspaceId }
      const at = yield* openSearchCursor(input.cursor, search)
      const [rows, counted] = yield* Effect.all([
        directory.searchCompanies(filter, at === undefined ? null : at.position.id, input.limit),
        at?.total === undefined ? directory.countCompanies(filter) : Effect.succeed(at.lowerBound === true ? COUNT_CAP + 1 : at.total)
      ], { concurrency: 2 })
      const { last, page } = paged(rows, input.limit)
      const total = totalOf(counted)
      const first = page[0]
      yield* annotateSearch(
        ctx,
        "companies",
        page.length,
        total.total_is_lower_bound,
        first === undefined ? [] : [
          { tool: "people_search", reason: `people of ${first.trade_name}`, input: { company_id: first.id } },
          { tool: "list_save", reason: "save these companies as a list", input: { kind: "companies", ids: page.map((c) => c.id) } }
        ]
      )
      return {
        search_id: searchId,
        ref: `companies_search:${searchId}`,
        ...total,
        companies: page,
        cursor: yield* sealSearchCursor(search, last, total)
      }
    })
})

export const companyGet = action({
  ...common,
  id: "company_get",
  label: "Ver empresa",
  description:
    "One company of the directory by id: tax id (RUT or RFC), names, industry, size, region, city, domain, founded year and how many people it has (revenue, switchboard and LinkedIn come with company_enrich).",
  input: CompanyGetInput,
  output: Company,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const directory = yield* Directory
      yield* directory.loaded()
      const row = yield* directory.company(input.id)
      if (row === undefined) {
        return yield* RecordNotFound.of("company", [input.id], {
          hint: "Find the company's id with companies_search",
          next_actions: [{ tool: "companies_search", reason: "find the company by name or tax id" }]
        })
      }
      const summary = companySummary(row)
      yield* ctx.annotate({
        next_actions: [
          { tool: "people_search", reason: `people of ${row.tradeName}`, input: { company_id: row.id } },
          {
            tool: "company_enrich",
            reason: "revenue estimate, switchboard, LinkedIn and exact headcount (credits)",
            input: { company_ids: [row.id] }
          }
        ]
      })
      return {
        ...summary,
        giro: row.giro,
        founded_year: row.foundedYear,
        people: row.people
      }
    })
})

export const peopleSearch = action({
  ...common,
  id: "people_search",
  label: "Buscar personas",
  description:
    "Search people of the directory by company, country, region, seniority, department, title words or name words (case and accents ignored). Contact data is never shown: has_email and has_phone say whether a reveal would find it.",
  input: PeopleSearchInput,
  output: PeopleSearchOutput,
  handler: (input, ctx) =>
    Effect.gen(function* () {
      const directory = yield* Directory
      yield* directory.loaded()
      const filter: PersonFilter = {
        titleWords: yield* wordsOf(input.title, "title"),
        nameWords: yield* wordsOf(input.name, "name"),
        ...given({
          companyId: input.company_id,
          country: input.country,
          region: input.region,
          seniority: input.seniority,
          department: input.department
        })
      }
      const searchId = searchIdOf("people_search", filter)
      const search = { toolId: "people_search", searchId, workspace: ctx.principal.workspaceId }
      const at = yield* openSearchCursor(input.cursor, search)
      const [rows, counted] = yield* Effect.all([
        directory.searchPeople(filter, at === undefined ? null : at.position.id, input.limit),
        at?.total === undefined ? directory.countPeople(filter) : Effect.succeed(at.lowerBound === true ? COUNT_CAP + 1 : at.total)
      ], { concurrency: 2 })
      if (rows.length === 0 && input.company_id !== undefined && (yield* directory.company(input.company_id)) === undefined) {
        return yield* RecordNotFound.of("company", [input.company_id], {
          next_actions: [{ tool: "companies_search", reason: "find the company's id" }]
        })
      }
      const { last, page } = paged(rows, input.limit)
      const total = totalOf(counted)
      yield* annotateSearch(
        ctx,
        "people",
        page.length,
        total.total_is_lower_bound,
        page.length === 0 ? [] : [
          { tool: "list_save", reason: "save these people as a list", input: { kind: "people", ids: page.map((p) => p.id) } }
        ]
      )
      return {
        search_id: searchId,
        ref: `people_search:${searchId}`,
        ...total,
        people: page,
        cursor: yield* sealSearchCursor(search, last, total)
      }
    })
})

export const personGet = action({
  ...common,
  id: "person_get",
  label: "Ver persona",
  description:
    "One person of the directory by id with their company: name, title, department, seniority, region, LinkedIn. Email and phone are never shown here (has_email, has_phone).",
  input: PersonGetInput,
  output: Person,
  handler: (input) =>
    Effect.gen(function* () {
      const directory = yield* Directory
      yield* directory.loaded()
      const row = yield* directory.person(input.id)
      const company = row === undefined ? undefined : (yield* directory.companiesById([row.companyId])).get(row.companyId)
      if (row === undefined || company === undefined) {
        return yield* RecordNotFound.of("person", [input.id], {
          hint: "Find the person's id with people_search",
          next_actions: [{ tool: "people_search", reason: "find the person by company, title or name" }]
        })
      }
      return {
        id: input.id,
        ref: `person:${row.id}`,
        company_id: company.id,
        company_name: row.companyName,
        full_name: row.fullName,
        title: row.title,
        department: row.department,
        seniority: row.seniority,
        country: row.country,
        region: company.region,
        has_email: row.hasEmail,
        has_phone: row.hasPhone,
        first_name: row.firstName,
        last_name: row.lastName,
        linkedin_url: row.linkedinUrl,
        company
      }
    })
})
