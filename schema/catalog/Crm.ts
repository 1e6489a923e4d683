import { Schema } from "effect"

export const CRM_MAX_IDS = 100

export const CompanyDirectoryId = Schema.String.pipe(
  Schema.pattern(/^co_[A-Za-z0-9_-]{1,60}$/, { message: () => "must be a company id of the directory (co_…)" })
).annotations({ description: "A company of the directory (co_…)" })

export const PersonDirectoryId = Schema.String.pipe(
  Schema.pattern(/^pe_[A-Za-z0-9_-]{1,60}$/, { message: () => "must be a person id of the directory (pe_…)" })
).annotations({ description: "A person of the directory (pe_…)" })

const CompanyIds = Schema.Array(CompanyDirectoryId).pipe(Schema.maxItems(CRM_MAX_IDS))
  .annotations({ description: `Companies of the directory, up to ${CRM_MAX_IDS}` })
const PersonIds = Schema.Array(PersonDirectoryId).pipe(Schema.maxItems(CRM_MAX_IDS))
  .annotations({ description: `People of the directory, up to ${CRM_MAX_IDS}` })

export const CrmRecordsInput = Schema.Struct({
  company_ids: Schema.optionalWith(CompanyIds, { exact: true }),
  person_ids: Schema.optionalWith(PersonIds, { exact: true })
}).pipe(
  Schema.filter((input) => {
    const n = (input.company_ids?.length ?? 0) + (input.person_ids?.length ?? 0)
    if (n === 0) return { path: ["company_ids"], message: "must have at least one id, here or in person_ids" }
    if (n > CRM_MAX_IDS) return { path: ["person_ids"], message: `and company_ids together: at most ${CRM_MAX_IDS} ids (${n} given)` }
    return true
  })
)
export type CrmRecordsInput = typeof CrmRecordsInput.Type

const CrmId = Schema.String.annotations({ description: "The record's id in the CRM" })
const CrmRef = Schema.String.annotations({ description: "Where the record lives in the CRM, e.g. crm:companies/1000001" })

export const LookupStatus = Schema.Literal("in_crm", "not_in_crm", "not_found").annotations({
  description: "in_crm: the CRM has it; not_in_crm: it does not; not_found: no such id in the directory"
})

export const LookupItem = Schema.Struct({
  id: Schema.String,
  status: LookupStatus,
  matched_by: Schema.optionalWith(Schema.Literal("brein_id", "domain", "tax_id", "email"), { exact: true }).annotations({
    description: "brein_id: saved from Brein; domain / tax_id / email: a record the team made by hand"
  }),
  crm_id: Schema.optionalWith(CrmId, { exact: true }),
  crm_ref: Schema.optionalWith(CrmRef, { exact: true })
})
export type LookupItem = typeof LookupItem.Type

export const LookupOutput = Schema.Struct({
  ref: Schema.String.annotations({ description: "Cite the counts with this ref" }),
  total: Schema.Int,
  counts: Schema.Struct({ in_crm: Schema.Int, not_in_crm: Schema.Int, not_found: Schema.Int }),
  companies: Schema.Array(LookupItem),
  people: Schema.Array(LookupItem)
})
export type LookupOutput = typeof LookupOutput.Type

export const SaveStatus = Schema.Literal("created", "updated", "unchanged", "failed", "not_found")

export const SaveItem = Schema.Struct({
  id: Schema.String,
  status: SaveStatus,
  crm_id: Schema.optionalWith(CrmId, { exact: true }),
  crm_ref: Schema.optionalWith(CrmRef, { exact: true }),
  changed: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }).annotations({
    description: "The CRM properties this call wrote"
  }),
  linked_company: Schema.optionalWith(CrmId, { exact: true }).annotations({
    description: "The CRM company (its crm_id) this call linked the person to; absent when the link was already there"
  }),
  error: Schema.optionalWith(Schema.String, { exact: true }).annotations({ description: "Why the CRM refused this record" })
})
export type SaveItem = typeof SaveItem.Type

export const SaveOutput = Schema.Struct({
  ref: Schema.String.annotations({ description: "Cite the counts with this ref" }),
  total: Schema.Int,
  counts: Schema.Struct({
    created: Schema.Int,
    updated: Schema.Int,
    unchanged: Schema.Int,
    failed: Schema.Int,
    not_found: Schema.Int
  }),
  companies: Schema.Array(SaveItem),
  people: Schema.Array(SaveItem)
})
export type SaveOutput = typeof SaveOutput.Type
