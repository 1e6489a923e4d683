import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

export const DirectoryCompany = Schema.Struct({
  id: Schema.String,
  country: Schema.String,
  taxId: Schema.String,
  tradeName: Schema.String,
  industry: Schema.String,
  city: Schema.String,
  domain: Schema.String
})
export type DirectoryCompany = typeof DirectoryCompany.Type

export const DirectoryPerson = Schema.Struct({
  id: Schema.String,
  companyId: Schema.String,
  firstName: Schema.String,
  lastName: Schema.String,
  title: Schema.String
})
export type DirectoryPerson = typeof DirectoryPerson.Type

const decodeCompanies = Schema.decodeUnknown(Schema.Array(DirectoryCompany))
const decodePeople = Schema.decodeUnknown(Schema.Array(DirectoryPerson))

/** The directory rows the CRM tools send: companies and people by id, without contact data. */
export class CrmDirectory extends Effect.Service<CrmDirectory>()("brein/catalog/crm/CrmDirectory", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const companies = Effect.fn("CrmDirectory.companies")(function* (ids: ReadonlyArray<string>) {
      if (ids.length === 0) return []
      return yield* sql`SELECT id, country, tax_id, trade_name, industry, city, domain FROM companies WHERE id IN ${sql.in(ids)}`.pipe(
        Effect.flatMap(decodeCompanies)
      )
    }, Effect.orDie)

    const people = Effect.fn("CrmDirectory.people")(function* (ids: ReadonlyArray<string>) {
      if (ids.length === 0) return []
      return yield* sql`SELECT id, company_id, first_name, last_name, title FROM people WHERE id IN ${sql.in(ids)}`.pipe(
        Effect.flatMap(decodePeople)
      )
    }, Effect.orDie)

    return { companies, people }
  })
}) {}
