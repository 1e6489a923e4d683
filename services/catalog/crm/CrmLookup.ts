import { Effect } from "effect"
import type { CrmRecordsInput, LookupItem, LookupOutput } from "../../../schema/catalog/Crm.ts"
import type { CrmObject, CrmObjectType } from "../../../schema/crm/Hubspot.ts"
import { CrmClient } from "../../crm/CrmClient.ts"
import type { CallInfo } from "../../tools/Tool.ts"
import { crmRef, indexBy, unique } from "./CrmRecords.ts"
import { directoryRecords } from "./DirectoryRecords.ts"

type Match = readonly [NonNullable<LookupItem["matched_by"]>, CrmObject]

const found = (id: string, type: CrmObjectType, match: Match | undefined): LookupItem =>
  match === undefined
    ? { id, status: "not_in_crm" }
    : { id, status: "in_crm", matched_by: match[0], crm_id: match[1].id, crm_ref: crmRef(type, match[1].id) }

/** Which of the given directory records the CRM already has: by brein_id, then by domain / tax_id (companies) or email (people). */
export const crmLookup = Effect.fn("CrmTools.lookup")(function* (input: CrmRecordsInput, ctx: CallInfo) {
  const crm = yield* CrmClient
  const workspaceId = ctx.principal.workspaceId
  const records = yield* directoryRecords(input, workspaceId)

  const companyIds = records.companies.map((c) => c.id)
  const byBrein = indexBy(
    yield* crm.searchIn(workspaceId, "companies", "brein_id", companyIds, ["brein_id", "domain", "tax_id"]),
    "brein_id"
  )
  const unmatched = records.companies.filter((c) => !byBrein.has(c.id.toLowerCase()))
  const byDomain = unmatched.length === 0
    ? new Map<string, CrmObject>()
    : indexBy(yield* crm.searchIn(workspaceId, "companies", "domain", unique(unmatched.map((c) => c.domain)), ["domain"]), "domain")
  const stillUnmatched = unmatched.filter((c) => !byDomain.has(c.domain.toLowerCase()))
  const byTaxId = stillUnmatched.length === 0
    ? new Map<string, CrmObject>()
    : indexBy(yield* crm.searchIn(workspaceId, "companies", "tax_id", unique(stillUnmatched.map((c) => c.taxId)), ["tax_id"]), "tax_id")

  const companyMatch = (id: string): Match | undefined => {
    const company = records.companyById.get(id)
    if (company === undefined) return undefined
    const brein = byBrein.get(id.toLowerCase())
    if (brein !== undefined) return ["brein_id", brein]
    const domain = byDomain.get(company.domain.toLowerCase())
    if (domain !== undefined) return ["domain", domain]
    const taxId = byTaxId.get(company.taxId.toLowerCase())
    return taxId === undefined ? undefined : ["tax_id", taxId]
  }

  const personIds = records.people.map((p) => p.id)
  const peopleByBrein = indexBy(yield* crm.searchIn(workspaceId, "contacts", "brein_id", personIds, ["brein_id", "email"]), "brein_id")
  const emails = records.people.flatMap((p) => {
    const email = records.emails.get(p.id)
    return email === undefined || peopleByBrein.has(p.id.toLowerCase()) ? [] : [email]
  })
  const byEmail = emails.length === 0
    ? new Map<string, CrmObject>()
    : indexBy(yield* crm.searchIn(workspaceId, "contacts", "email", unique(emails), ["email"]), "email")

  const personMatch = (id: string): Match | undefined => {
    const brein = peopleByBrein.get(id.toLowerCase())
    if (brein !== undefined) return ["brein_id", brein]
    const email = records.emails.get(id)
    const byMail = email === undefined ? undefined : byEmail.get(email.toLowerCase())
    return byMail === undefined ? undefined : ["email", byMail]
  }

  const companies = records.companyIdsAsked.map((id): LookupItem =>
    records.companyById.has(id) ? found(id, "companies", companyMatch(id)) : { id, status: "not_found" }
  )
  const people = records.personIdsAsked.map((id): LookupItem =>
    records.personById.has(id) ? found(id, "contacts", personMatch(id)) : { id, status: "not_found" }
  )
  const all = [...companies, ...people]
  const count = (status: LookupItem["status"]) => all.filter((item) => item.status === status).length
  const missing = all.filter((item) => item.status === "not_in_crm")
  if (missing.length > 0) {
    yield* ctx.annotate({
      next_actions: [{
        tool: "crm_save",
        reason: "save the records the CRM does not have yet",
        input: {
          ...(companies.some((c) => c.status === "not_in_crm")
            ? { company_ids: companies.filter((c) => c.status === "not_in_crm").map((c) => c.id) }
            : {}),
          ...(people.some((p) => p.status === "not_in_crm")
            ? { person_ids: people.filter((p) => p.status === "not_in_crm").map((p) => p.id) }
            : {})
        }
      }]
    })
  }
  return {
    ref: `crm_lookup:${ctx.requestId}`,
    total: all.length,
    counts: { in_crm: count("in_crm"), not_in_crm: count("not_in_crm"), not_found: count("not_found") },
    companies,
    people
  } satisfies LookupOutput
})
