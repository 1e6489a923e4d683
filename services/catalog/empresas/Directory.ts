import { SqlClient } from "@effect/sql"
import { Cache, Duration, Effect, Exit, Schema } from "effect"
import { CompanyRow, Country, Department, Industry, Seniority, Size } from "../../../schema/catalog/Directory.ts"
import type { CompanySummary, PersonSummary } from "../../../schema/catalog/Empresas.ts"
import { RecordNotFound } from "../../../schema/Errors.ts"
import { regionName } from "../../../schema/geo/Region.ts"
import {
  companiesCount,
  companiesPage,
  companyColumns,
  type CompanyFilter,
  peopleCount,
  peopleFrom,
  peoplePage,
  personColumns,
  type PersonFilter,
  type Query
} from "./Queries.ts"

const CompanySummaryRow = Schema.Struct({
  id: Schema.String,
  country: Country,
  taxId: Schema.String,
  legalName: Schema.String,
  tradeName: Schema.String,
  industry: Industry,
  size: Size,
  employees: Schema.Int,
  region: Schema.String,
  city: Schema.String,
  domain: Schema.String
})
type CompanySummaryRow = typeof CompanySummaryRow.Type

const PersonSummaryRow = Schema.Struct({
  id: Schema.String,
  companyId: Schema.String,
  companyName: Schema.String,
  fullName: Schema.String,
  title: Schema.String,
  department: Department,
  seniority: Seniority,
  country: Country,
  region: Schema.String,
  hasEmail: Schema.Boolean,
  hasPhone: Schema.Boolean
})
type PersonSummaryRow = typeof PersonSummaryRow.Type

const CompanyDetailRow = Schema.Struct({ ...CompanyRow.fields, revenueEstimate: Schema.NumberFromString, people: Schema.Int })
const PersonDetailRow = Schema.Struct({
  ...PersonSummaryRow.fields,
  firstName: Schema.String,
  lastName: Schema.String,
  linkedinUrl: Schema.NullOr(Schema.String)
})
const Count = Schema.Struct({ n: Schema.Int })
const Presence = Schema.Struct({ present: Schema.Boolean })
const LOADED_TTL = Duration.minutes(1)

export const noDirectory = new RecordNotFound({
  kind: "directory",
  ids: [],
  message: "no directory of companies and people is loaded: there is nothing to search or look up yet",
  hint:
    "An operator loads the directory with: brein seed --only directory (brein seed loads Mercado too), or starts brein serve with BREIN_SEED_DIRECTORY=true"
})

export const companySummary = (r: CompanySummaryRow): CompanySummary => ({
  id: r.id as CompanySummary["id"],
  ref: `company:${r.id}`,
  country: r.country,
  tax_id: r.taxId,
  legal_name: r.legalName,
  trade_name: r.tradeName,
  industry: r.industry,
  size: r.size,
  employees: r.employees,
  region: r.region as CompanySummary["region"],
  region_name: regionName(r.region),
  city: r.city,
  domain: r.domain
})

export const personSummary = (r: PersonSummaryRow): PersonSummary => ({
  id: r.id as PersonSummary["id"],
  ref: `person:${r.id}`,
  company_id: r.companyId as PersonSummary["company_id"],
  company_name: r.companyName,
  full_name: r.fullName,
  title: r.title,
  department: r.department,
  seniority: r.seniority,
  country: r.country,
  region: r.region as PersonSummary["region"],
  has_email: r.hasEmail,
  has_phone: r.hasPhone
})

/** Reads of the shared directory of companies and people: contact data never leaves through here. */
export class Directory extends Effect.Service<Directory>()("brein/catalog/empresas/Directory", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const run = <A, I>(schema: Schema.Schema<A, I>, query: Query) =>
      sql.unsafe(query.text, query.params).pipe(Effect.flatMap(Schema.decodeUnknown(Schema.Array(schema))), Effect.orDie)
    const counted = (query: Query) => Effect.map(run(Count, query), (rows) => rows[0]?.n ?? 0)

    // A seed replaces the directory in one transaction, so a loaded directory stays loaded: that is kept (and
    // asked again after LOADED_TTL, should it be emptied by hand). "Not loaded" is never kept: a seed run by
    // another process (brein seed) would end it without this one hearing.
    const presence = yield* Cache.makeWith({
      capacity: 1,
      lookup: (_: "companies") =>
        Effect.map(
          run(Presence, { text: "SELECT EXISTS (SELECT 1 FROM companies) AS present", params: [] }),
          (rows) => rows[0]?.present === true
        ),
      timeToLive: (exit: Exit.Exit<boolean>) => (Exit.isSuccess(exit) && exit.value ? LOADED_TTL : Duration.zero)
    })

    /** Succeeds when the directory holds companies; otherwise a RecordNotFound telling how to load it. */
    const loaded = Effect.fn("Directory.loaded")(function* () {
      // A zero time to live still answers within the same millisecond (or forever on a stopped clock): drop it at once.
      const present = yield* presence.get("companies").pipe(
        Effect.onExit((exit) => (Exit.isSuccess(exit) && exit.value ? Effect.void : presence.invalidate("companies")))
      )
      if (!present) return yield* noDirectory
    })

    const searchCompanies = Effect.fn("Directory.searchCompanies")(function* (f: CompanyFilter, after: string | null, limit: number) {
      return (yield* run(CompanySummaryRow, companiesPage(f, after, limit))).map(companySummary)
    })
    const countCompanies = Effect.fn("Directory.countCompanies")(function* (f: CompanyFilter) {
      return yield* counted(companiesCount(f))
    })
    const searchPeople = Effect.fn("Directory.searchPeople")(function* (f: PersonFilter, after: string | null, limit: number) {
      return (yield* run(PersonSummaryRow, peoplePage(f, after, limit))).map(personSummary)
    })
    const countPeople = Effect.fn("Directory.countPeople")(function* (f: PersonFilter) {
      return yield* counted(peopleCount(f))
    })

    const company = Effect.fn("Directory.company")(function* (id: string) {
      const rows = yield* run(CompanyDetailRow, {
        text: `SELECT c.*, (SELECT count(*)::int FROM people p WHERE p.company_id = c.id) AS people
               FROM companies c WHERE c.id = $1`,
        params: [id]
      })
      return rows[0]
    })

    const person = Effect.fn("Directory.person")(function* (id: string) {
      const rows = yield* run(PersonDetailRow, {
        text: `SELECT ${personColumns}, p.first_name, p.last_name, p.linkedin_url FROM ${peopleFrom} WHERE p.id = $1`,
        params: [id]
      })
      return rows[0]
    })

    const companiesById = Effect.fn("Directory.companiesById")(function* (ids: ReadonlyArray<string>) {
      if (ids.length === 0) return new Map<string, CompanySummary>()
      const rows = yield* run(CompanySummaryRow, {
        text: `SELECT ${companyColumns} FROM companies WHERE id = ANY($1::text[])`,
        params: [ids]
      })
      return new Map(rows.map((r) => [r.id, companySummary(r)]))
    })

    const peopleById = Effect.fn("Directory.peopleById")(function* (ids: ReadonlyArray<string>) {
      if (ids.length === 0) return new Map<string, PersonSummary>()
      const rows = yield* run(PersonSummaryRow, {
        text: `SELECT ${personColumns} FROM ${peopleFrom} WHERE p.id = ANY($1::text[])`,
        params: [ids]
      })
      return new Map(rows.map((r) => [r.id, personSummary(r)]))
    })

    /** The ids of `ids` that are not in the directory (as companies or as people), in their order. */
    const missing = Effect.fn("Directory.missing")(function* (kind: "companies" | "people", ids: ReadonlyArray<string>) {
      const rows = yield* run(Schema.Struct({ id: Schema.String }), {
        text: `SELECT id FROM ${kind} WHERE id = ANY($1::text[])`,
        params: [ids]
      })
      const found = new Set(rows.map((r) => r.id))
      return ids.filter((id) => !found.has(id))
    })

    return { loaded, searchCompanies, countCompanies, searchPeople, countPeople, company, person, companiesById, peopleById, missing }
  })
}) {}

/** Succeeds when the directory is loaded; otherwise the RecordNotFound (`kind: "directory"`) that says how to load it. */
export const directoryLoaded = Effect.flatMap(Directory, (directory) => directory.loaded())
