import { Schema } from "effect"
import { Region, RegionCode } from "../geo/Region.ts"
import { Int4 } from "../Int4.ts"
import { maxLength, minLength } from "../Length.ts"
import { TaxId } from "../tax/TaxId.ts"
import { publishDecoded } from "../tools/JsonSchema.ts"
import { CompanyId, Country, Department, Industry, ListKind, PersonId, Seniority, Size } from "./Directory.ts"

export const MAX_LIMIT = 100
export const MAX_LIST_ITEMS = 1000
/** Searches count matches up to this many; past it the total is a lower bound. */
export const COUNT_CAP = 10_000

const Limit = (fallback: number) =>
  Schema.optionalWith(
    Schema.Int.pipe(Schema.between(1, MAX_LIMIT)).annotations({
      description: `Results per page, 1–${MAX_LIMIT} (default ${fallback})`,
      message: () => ({ message: `must be an integer from 1 to ${MAX_LIMIT}`, override: true })
    }),
    { default: () => fallback }
  )

/** A search's cursor: sealed by the server (signed, bound to the workspace and the search), valid 30 minutes. */
const SealedCursor = Schema.optionalWith(
  Schema.String.pipe(maxLength(1000)).annotations({
    description: "The sealed cursor of the previous page of the same search (opaque, valid 30 minutes); omit it for the first page"
  }),
  { exact: true }
)

const LENGTH_MESSAGE = { message: () => "must be 2 to 100 characters" }

/** Words to search by: 2 to 100 characters once trimmed (the length's own message; anything not a string says so). */
export const Words = (description: string) =>
  Schema.optionalWith(
    publishDecoded(
      Schema.Trim.pipe(minLength(2, LENGTH_MESSAGE), maxLength(100, LENGTH_MESSAGE)).annotations({ description })
    ),
    { exact: true }
  )

const optional = <A, I>(schema: Schema.Schema<A, I>, description: string) =>
  Schema.optionalWith(schema, { exact: true }).annotations({ description })

const Employees = Int4(1)

const Ref = Schema.String.annotations({ description: "Cite this result with this ref" })
const SearchId = Schema.String.annotations({ description: "Identifies this search (same filters → same id)" })
const Total = Schema.Int.annotations({ description: `Matches, counted up to ${COUNT_CAP.toLocaleString("en-US")}` })
const LowerBound = Schema.Boolean.annotations({
  description: `true when more than ${COUNT_CAP.toLocaleString("en-US")} match: total is a lower bound`
})
const NextCursor = Schema.NullOr(Schema.String).annotations({ description: "Send it as cursor for the next page; null on the last page" })

const regionInCountry = (input: { readonly country?: string; readonly region?: string }) =>
  input.country === undefined || input.region === undefined || input.region.startsWith(`${input.country}-`) ||
  { path: ["region"], message: `${input.region} is not a region of ${input.country}` }

export const CompaniesSearchInput = Schema.Struct({
  q: Words("Words of the company's name (legal or trade); case and accents are ignored: compania finds Compañía"),
  country: optional(Country, "Only companies of this country"),
  region: optional(Region, "Only companies in this region (Chile) or state (Mexico)"),
  industry: optional(Industry, "Only this industry"),
  size: optional(Size, "Only this size"),
  employees_min: optional(Employees, "At least this many employees"),
  employees_max: optional(Employees, "At most this many employees"),
  tax_id: optional(TaxId, "The company with this RUT or RFC"),
  limit: Limit(25),
  cursor: SealedCursor
}).pipe(
  Schema.filter((input) => [
    regionInCountry(input),
    input.employees_min === undefined || input.employees_max === undefined || input.employees_min <= input.employees_max ||
    { path: ["employees_max"], message: "must not be below employees_min" }
  ])
)
export type CompaniesSearchInput = typeof CompaniesSearchInput.Type

export const CompanySummary = Schema.Struct({
  id: CompanyId,
  ref: Ref,
  country: Country,
  tax_id: Schema.String.annotations({ description: "RUT (Chile) or RFC (Mexico)" }),
  legal_name: Schema.String,
  trade_name: Schema.String,
  industry: Industry,
  size: Size,
  employees: Schema.Int,
  region: RegionCode,
  region_name: Schema.String,
  city: Schema.String,
  domain: Schema.String
})
export type CompanySummary = typeof CompanySummary.Type

export const CompaniesSearchOutput = Schema.Struct({
  search_id: SearchId,
  ref: Ref,
  total: Total,
  total_is_lower_bound: LowerBound,
  companies: Schema.Array(CompanySummary),
  cursor: NextCursor
})

export const CompanyGetInput = Schema.Struct({
  id: CompanyId.annotations({ description: "The company's id (co_…), from companies_search" })
})

export const Company = Schema.Struct({
  ...CompanySummary.fields,
  giro: Schema.NullOr(Schema.String).annotations({ description: "The activity registered with SII (Chile); null in Mexico" }),
  founded_year: Schema.Int,
  people: Schema.Int.annotations({ description: "People of this company in the directory (people_search with company_id)" })
})

export const PeopleSearchInput = Schema.Struct({
  company_id: optional(CompanyId, "Only people of this company"),
  country: optional(Country, "Only people in this country"),
  region: optional(Region, "Only people in this region (Chile) or state (Mexico)"),
  seniority: optional(Seniority, "Only this seniority"),
  department: optional(Department, "Only this department"),
  title: Words("Words of the job title; case and accents are ignored (gerente comercial, tecnologia)"),
  name: Words("Words of the person's name; case and accents are ignored"),
  limit: Limit(25),
  cursor: SealedCursor
}).pipe(Schema.filter(regionInCountry))
export type PeopleSearchInput = typeof PeopleSearchInput.Type

export const PersonSummary = Schema.Struct({
  id: PersonId,
  ref: Ref,
  company_id: CompanyId,
  company_name: Schema.String,
  full_name: Schema.String,
  title: Schema.String,
  department: Department,
  seniority: Seniority,
  country: Country,
  region: RegionCode,
  has_email: Schema.Boolean.annotations({ description: "An email is on file (revealed through a credits tool, never here)" }),
  has_phone: Schema.Boolean.annotations({ description: "A phone is on file (revealed through a credits tool, never here)" })
})
export type PersonSummary = typeof PersonSummary.Type

export const PeopleSearchOutput = Schema.Struct({
  search_id: SearchId,
  ref: Ref,
  total: Total,
  total_is_lower_bound: LowerBound,
  people: Schema.Array(PersonSummary),
  cursor: NextCursor
})

export const PersonGetInput = Schema.Struct({
  id: PersonId.annotations({ description: "The person's id (pe_…), from people_search" })
})

export const Person = Schema.Struct({
  ...PersonSummary.fields,
  first_name: Schema.String,
  last_name: Schema.String,
  linkedin_url: Schema.NullOr(Schema.String),
  company: CompanySummary
})

const ListName = publishDecoded(
  Schema.Trim.pipe(minLength(1), maxLength(100)).annotations({
    description: "The list's name, unique in the workspace (1–100 characters)"
  })
)

export const ListSaveInput = Schema.Struct({
  name: ListName,
  kind: ListKind,
  ids: Schema.Array(Schema.String.pipe(maxLength(64))).pipe(Schema.minItems(1), Schema.maxItems(MAX_LIST_ITEMS)).annotations({
    description: `Company ids (co_…) or person ids (pe_…) as kind says, 1–${MAX_LIST_ITEMS}; duplicates are dropped, order is kept`
  })
}).pipe(
  Schema.filter((input) => {
    const prefix = input.kind === "companies" ? "co_" : "pe_"
    const at = input.ids.findIndex((id) => !id.startsWith(prefix))
    return at < 0 || { path: ["ids", at], message: `must be a ${prefix}… id: a list of ${input.kind} holds those` }
  })
)

export const ListSaveOutput = Schema.Struct({
  list_id: Schema.String,
  ref: Ref,
  name: Schema.String,
  kind: ListKind,
  items: Schema.Int.annotations({ description: "Items saved" }),
  duplicates_removed: Schema.Int,
  replaced: Schema.Boolean.annotations({ description: "true when a list of this name existed and was replaced" }),
  updated_at: Schema.String
})

export const ListGetInput = Schema.Struct({
  name: Schema.optionalWith(ListName, { exact: true }),
  list_id: optional(Schema.String.pipe(maxLength(64)), "The list's id (li_…), from list_save"),
  limit: Limit(50),
  cursor: SealedCursor
}).pipe(
  Schema.filter((input) =>
    (input.name === undefined) !== (input.list_id === undefined) ||
    { path: ["name"], message: "or list_id: give exactly one of them" }
  )
)

export const ListItem = Schema.Struct({
  position: Schema.Int,
  id: Schema.String,
  found: Schema.Boolean.annotations({ description: "false when the id is no longer in the directory (a reloaded directory)" }),
  company: Schema.optionalWith(CompanySummary, { exact: true }),
  person: Schema.optionalWith(PersonSummary, { exact: true })
})

export const ListGetOutput = Schema.Struct({
  list_id: Schema.String,
  ref: Ref,
  name: Schema.String,
  kind: ListKind,
  total: Schema.Int.annotations({ description: "Items in the list" }),
  updated_at: Schema.String,
  items: Schema.Array(ListItem),
  cursor: NextCursor
})
