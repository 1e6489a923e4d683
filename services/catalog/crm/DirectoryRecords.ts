import { Effect } from "effect"
import type { CrmRecordsInput } from "../../../schema/catalog/Crm.ts"
import { InvalidInput } from "../../../schema/Errors.ts"
import { CrmDirectory, type DirectoryCompany, type DirectoryPerson } from "./CrmDirectory.ts"
import { unique } from "./CrmRecords.ts"
import { revealedEmails } from "./RevealedContacts.ts"

/**
 * The directory rows of the ids asked for (each once, in the order asked), the companies of those
 * people, and the emails this workspace revealed. Unknown ids are left to be reported per item;
 * only when none of the ids exists is the whole call refused.
 */
export const directoryRecords = Effect.fn("CrmTools.directoryRecords")(function* (input: CrmRecordsInput, workspaceId: string) {
  const directory = yield* CrmDirectory
  const companyIdsAsked = unique(input.company_ids ?? [])
  const personIdsAsked = unique(input.person_ids ?? [])
  const [companies, people] = yield* Effect.all([directory.companies(companyIdsAsked), directory.people(personIdsAsked)])
  if (companies.length === 0 && people.length === 0) {
    return yield* InvalidInput.of([
      ...companyIdsAsked.map((id, i) => ({
        path: `input.company_ids.${i}`,
        message: `must be a company of the directory: there is no ${id}`
      })),
      ...personIdsAsked.map((id, i) => ({ path: `input.person_ids.${i}`, message: `must be a person of the directory: there is no ${id}` }))
    ])
  }
  const employers = yield* directory.companies(unique(people.map((p) => p.companyId)).filter((id) => !companyIdsAsked.includes(id)))
  const emails = yield* revealedEmails(workspaceId, people.map((p) => p.id))
  return {
    companyIdsAsked,
    personIdsAsked,
    companies,
    people,
    employers,
    emails,
    companyById: new Map<string, DirectoryCompany>([...companies, ...employers].map((c) => [c.id, c])),
    personById: new Map<string, DirectoryPerson>(people.map((p) => [p.id, p]))
  }
})
