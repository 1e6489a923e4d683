import type { CrmObject, CrmObjectType, CrmProperties, UpsertInput } from "../../../schema/crm/Hubspot.ts"
import type { DirectoryCompany, DirectoryPerson } from "./CrmDirectory.ts"

export const COMPANY_PROPERTIES = ["name", "domain", "tax_id", "country", "city", "industry", "brein_id"]
export const CONTACT_PROPERTIES = ["firstname", "lastname", "email", "jobtitle", "company", "brein_id"]

/** HubSpot's contact → company association (the primary company). */
const PRIMARY_COMPANY = { associationCategory: "HUBSPOT_DEFINED", associationTypeId: 1 } as const

export const crmRef = (type: CrmObjectType, id: string) => `crm:${type}/${id}`

export const companyProperties = (company: DirectoryCompany): Record<string, string> => ({
  name: company.tradeName,
  domain: company.domain,
  tax_id: company.taxId,
  country: company.country,
  city: company.city,
  industry: company.industry,
  brein_id: company.id
})

export const contactProperties = (
  person: DirectoryPerson,
  company: DirectoryCompany | undefined,
  email: string | undefined
): Record<string, string> => ({
  firstname: person.firstName,
  lastname: person.lastName,
  jobtitle: person.title,
  ...(company === undefined ? {} : { company: company.tradeName }),
  ...(email === undefined ? {} : { email }),
  brein_id: person.id
})

/** The properties the CRM would have to change to hold `desired`: empty when saving again would change nothing. */
export const changedProperties = (desired: Record<string, string>, existing: CrmProperties | undefined): ReadonlyArray<string> =>
  Object.keys(desired).filter((name) => (existing?.[name] ?? null) !== desired[name])

export const upsertInput = (properties: Record<string, string>, companyCrmId?: string): UpsertInput => ({
  idProperty: "brein_id",
  id: properties["brein_id"] ?? "",
  properties,
  ...(companyCrmId === undefined ? {} : { associations: [{ to: { id: companyCrmId }, types: [PRIMARY_COMPANY] }] })
})

/** The CRM objects by the value of one property (lower-cased: the CRM compares these without case). */
export const indexBy = <O extends CrmObject>(objects: ReadonlyArray<O>, property: string): ReadonlyMap<string, O> =>
  new Map(objects.flatMap((object) => {
    const value = object.properties[property]
    return value === undefined || value === null ? [] : [[value.toLowerCase(), object] as const]
  }))

export const unique = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> => [...new Set(values)]
