import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"

const suffix = () => randomBytes(5).toString("hex")

export interface CompanyRow {
  readonly id: string
  readonly country: "CL" | "MX"
  readonly legalName: string
  readonly revenue: number
  readonly employees: number
  readonly phone: string | null
  readonly linkedin: string | null
}

export interface PersonRow {
  readonly id: string
  readonly companyId: string
  readonly fullName: string
  readonly title: string
  readonly email: string | null
  readonly phone: string | null
}

/** A company of the shared directory, with a fresh id (the directory is loaded by `brein seed`; tests add their own rows). */
export const insertCompany = (fields: Partial<Omit<CompanyRow, "id">> = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tag = suffix()
    const row: CompanyRow = {
      id: `co_${tag}`,
      country: fields.country ?? "CL",
      legalName: fields.legalName ?? `Empresa ${tag} SpA`,
      revenue: fields.revenue ?? 1_000_000,
      employees: fields.employees ?? 42,
      phone: fields.phone === undefined ? "+56 2 2345 6789" : fields.phone,
      linkedin: fields.linkedin === undefined ? `https://www.linkedin.com/company/${tag}` : fields.linkedin
    }
    yield* sql`INSERT INTO companies (id, country, tax_id, legal_name, trade_name, industry, giro, size, employees, region, city,
        domain, founded_year, revenue_estimate, phone, linkedin_url)
      VALUES (${row.id}, ${row.country}, ${`tax-${tag}`}, ${row.legalName}, ${`Trade ${tag}`}, 'software', NULL, 'mediana',
        ${row.employees}, 'RM', 'Santiago', ${`${tag}.example`}, 2010, ${row.revenue}, ${row.phone}, ${row.linkedin})`
    return row
  })

/** A person of the directory at `companyId`; `email` and `phone` null mean no contact data. */
export const insertPerson = (companyId: string, contact: { readonly email: string | null; readonly phone: string | null }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tag = suffix()
    const row: PersonRow = { id: `pe_${tag}`, companyId, fullName: `Ana ${tag}`, title: "Gerente", ...contact }
    yield* sql`INSERT INTO people (id, company_id, first_name, last_name, full_name, title, department, seniority, country, region,
        email, phone, linkedin_url)
      VALUES (${row.id}, ${companyId}, 'Ana', ${tag}, ${row.fullName}, ${row.title}, 'ventas', 'manager', 'CL', 'RM', ${row.email},
        ${row.phone}, NULL)`
    return row
  })

/** The people a workspace has revealed, as the table records them. */
export const revealedBy = (workspaceId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ personId: string; requestId: string }>`SELECT person_id, request_id FROM revealed_contacts
      WHERE workspace_id = ${workspaceId} ORDER BY person_id`
  )

export const enrichedBy = (workspaceId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ companyId: string; requestId: string }>`SELECT company_id, request_id FROM enriched_companies
      WHERE workspace_id = ${workspaceId} ORDER BY company_id`
  )
