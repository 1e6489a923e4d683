import { Array as Arr, Effect } from "effect"
import type { CrmRecordsInput, SaveItem, SaveOutput } from "../../../schema/catalog/Crm.ts"
import { CRM_LIMITS, type CrmObject, type CrmObjectType, type UpsertInput } from "../../../schema/crm/Hubspot.ts"
import { CrmClient } from "../../crm/CrmClient.ts"
import type { CallInfo } from "../../tools/Tool.ts"
import {
  changedProperties,
  COMPANY_PROPERTIES,
  companyProperties,
  CONTACT_PROPERTIES,
  contactProperties,
  crmRef,
  indexBy,
  upsertInput
} from "./CrmRecords.ts"
import { directoryRecords } from "./DirectoryRecords.ts"

interface Planned {
  readonly id: string
  readonly desired: Record<string, string>
  readonly existing: CrmObject | undefined
  /** The CRM company to link the person to: it is in the CRM and the person is not linked to it yet. */
  readonly linkTo?: string
}

/** Upserts the records that would change (in batches of 100) and says what became of each: none is left out. */
const save = Effect.fn("CrmTools.saveBatch")(function* (workspaceId: string, type: CrmObjectType, planned: ReadonlyArray<Planned>) {
  const crm = yield* CrmClient
  const outcome = new Map<string, SaveItem>()
  const toSend: Array<{ readonly plan: Planned; readonly changed: ReadonlyArray<string>; readonly input: UpsertInput }> = []
  for (const plan of planned) {
    const changed = changedProperties(plan.desired, plan.existing?.properties)
    if (plan.existing !== undefined && changed.length === 0 && plan.linkTo === undefined) {
      outcome.set(plan.id, { id: plan.id, status: "unchanged", crm_id: plan.existing.id, crm_ref: crmRef(type, plan.existing.id) })
    } else {
      toSend.push({ plan, changed, input: upsertInput(plan.desired, plan.linkTo) })
    }
  }
  for (const batch of Arr.chunksOf(toSend, CRM_LIMITS.batchInputs)) {
    const response = yield* crm.batchUpsert(workspaceId, type, batch.map((b) => b.input))
    const results = indexBy(response.results, "brein_id")
    for (const { changed, plan } of batch) {
      const result = results.get(plan.id.toLowerCase())
      const error = response.errors?.find((e) => e.context?.["id"]?.includes(plan.id) === true)
      outcome.set(
        plan.id,
        result !== undefined
          ? {
            id: plan.id,
            status: result.new ? "created" : "updated",
            crm_id: result.id,
            crm_ref: crmRef(type, result.id),
            changed,
            ...(plan.linkTo === undefined ? {} : { linked_company: plan.linkTo })
          }
          : { id: plan.id, status: "failed", error: error?.message ?? "the CRM did not report this record: save it again" }
      )
    }
  }
  return outcome
})

/** Saves the directory records into the CRM by brein_id; what already matches is left alone and reported unchanged. */
export const crmSave = Effect.fn("CrmTools.save")(function* (input: CrmRecordsInput, ctx: CallInfo) {
  const crm = yield* CrmClient
  const workspaceId = ctx.principal.workspaceId
  const records = yield* directoryRecords(input, workspaceId)

  const companyKeys = [...records.companies, ...records.employers].map((c) => c.id)
  const existingCompanies = indexBy(yield* crm.searchIn(workspaceId, "companies", "brein_id", companyKeys, COMPANY_PROPERTIES), "brein_id")
  const companies = yield* save(
    workspaceId,
    "companies",
    records.companies.map((c) => ({ id: c.id, desired: companyProperties(c), existing: existingCompanies.get(c.id.toLowerCase()) }))
  )
  const companyCrmId = (id: string) => companies.get(id)?.crm_id ?? existingCompanies.get(id.toLowerCase())?.id

  const existingPeople = indexBy(
    yield* crm.searchIn(workspaceId, "contacts", "brein_id", records.people.map((p) => p.id), CONTACT_PROPERTIES),
    "brein_id"
  )
  // Whether a saved person is linked to their company is not among their properties: read it for those it could concern.
  const inCrm = records.people.flatMap((p) => {
    const existing = existingPeople.get(p.id.toLowerCase())
    return existing === undefined || companyCrmId(p.companyId) === undefined ? [] : [existing.id]
  })
  const linked = inCrm.length === 0 ? new Map<string, ReadonlySet<string>>() : yield* crm.companiesOf(workspaceId, inCrm)
  const people = yield* save(
    workspaceId,
    "contacts",
    records.people.map((p) => {
      const company = companyCrmId(p.companyId)
      const existing = existingPeople.get(p.id.toLowerCase())
      const linkTo = company === undefined || (existing !== undefined && linked.get(existing.id)?.has(company) === true)
        ? undefined
        : company
      return {
        id: p.id,
        desired: contactProperties(p, records.companyById.get(p.companyId), records.emails.get(p.id)),
        existing,
        ...(linkTo === undefined ? {} : { linkTo })
      }
    })
  )

  const companyItems = records.companyIdsAsked.map((id): SaveItem => companies.get(id) ?? { id, status: "not_found" })
  const personItems = records.personIdsAsked.map((id): SaveItem => people.get(id) ?? { id, status: "not_found" })
  const all = [...companyItems, ...personItems]
  const count = (status: SaveItem["status"]) => all.filter((item) => item.status === status).length
  const withoutEmail = records.people.filter((p) => !records.emails.has(p.id)).map((p) => p.id)
  const unassociated = records.people.filter((p) => companyCrmId(p.companyId) === undefined).map((p) => p.companyId)
  const warnings = [
    ...(withoutEmail.length > 0
      ? [`${withoutEmail.length} people were saved without email: only revealed contacts are sent with their email.`]
      : []),
    ...(unassociated.length > 0 ? [`${unassociated.length} people were saved without their company: save the company too.`] : [])
  ]
  yield* ctx.annotate({
    ...(count("failed") > 0
      ? {
        hint:
          "Some records were refused by the CRM (see error per record); the rest were saved. Fix the data and save the failed ones again."
      }
      : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(unassociated.length > 0
      ? {
        next_actions: [{
          tool: "crm_save",
          reason: "save these people's companies, then the people again",
          input: { company_ids: [...new Set(unassociated)] }
        }]
      }
      : {})
  })
  return {
    ref: `crm_save:${ctx.requestId}`,
    total: all.length,
    counts: {
      created: count("created"),
      updated: count("updated"),
      unchanged: count("unchanged"),
      failed: count("failed"),
      not_found: count("not_found")
    },
    companies: companyItems,
    people: personItems
  } satisfies SaveOutput
})
