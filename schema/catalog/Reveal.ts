import { Schema } from "effect"

const unique = (what: string) => (ids: ReadonlyArray<string>) => new Set(ids).size === ids.length || `lists a ${what} twice`

export const PersonId = Schema.String.pipe(Schema.pattern(/^pe_[A-Za-z0-9]{1,40}$/, { message: () => "must be a person id (pe_…)" }))
export const CompanyId = Schema.String.pipe(Schema.pattern(/^co_[A-Za-z0-9]{1,40}$/, { message: () => "must be a company id (co_…)" }))

export const RevealInput = Schema.Struct({
  person_ids: Schema.Array(PersonId).pipe(Schema.minItems(1), Schema.maxItems(100), Schema.filter(unique("person"))).annotations({
    description: "The people (pe_… from people_search) whose work email and phone to reveal: 1 to 100"
  })
})

export const RevealStatus = Schema.Literal("revealed", "already_owned", "no_contact_data", "not_found").annotations({
  description: "revealed: charged now; already_owned: revealed before by this workspace, free; " +
    "no_contact_data: the person exists but the directory has no email or phone for them, free; not_found: no such person, free"
})

export const RevealedPerson = Schema.Struct({
  person_id: Schema.String,
  status: RevealStatus,
  full_name: Schema.NullOr(Schema.String),
  company_id: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  credits: Schema.Int
})

export const RevealOutput = Schema.Struct({
  ref: Schema.String,
  people: Schema.Array(RevealedPerson),
  revealed: Schema.Int,
  already_owned: Schema.Int,
  no_contact_data: Schema.Int,
  not_found: Schema.Int,
  credits_total: Schema.Int.annotations({ description: "Credits charged for this reveal (the sum of the items' credits)" }),
  credits_average: Schema.Number.annotations({ description: "credits_total per person asked" })
})

export const EnrichInput = Schema.Struct({
  company_ids: Schema.Array(CompanyId).pipe(Schema.minItems(1), Schema.maxItems(100), Schema.filter(unique("company"))).annotations({
    description: "The companies (co_… from companies_search) to enrich with revenue, phone, LinkedIn and exact headcount: 1 to 100"
  })
})

export const EnrichStatus = Schema.Literal("enriched", "already_owned", "not_found")

export const EnrichedCompany = Schema.Struct({
  company_id: Schema.String,
  status: EnrichStatus,
  legal_name: Schema.NullOr(Schema.String),
  revenue_estimate_usd: Schema.NullOr(Schema.Number).annotations({ description: "Estimated yearly revenue in US dollars" }),
  employees: Schema.NullOr(Schema.Int),
  phone: Schema.NullOr(Schema.String),
  linkedin_url: Schema.NullOr(Schema.String),
  credits: Schema.Int
})

export const EnrichOutput = Schema.Struct({
  ref: Schema.String,
  companies: Schema.Array(EnrichedCompany),
  enriched: Schema.Int,
  already_owned: Schema.Int,
  not_found: Schema.Int,
  credits_total: Schema.Int,
  credits_average: Schema.Number,
  revenue_total_usd: Schema.Number.annotations({ description: "Sum of the revenue estimates returned, in US dollars" }),
  revenue_average_usd: Schema.Number.annotations({ description: "revenue_total_usd per company with an estimate" })
})
