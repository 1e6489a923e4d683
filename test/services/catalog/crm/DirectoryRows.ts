import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"

const suffix = () => randomBytes(4).toString("hex")

/** A company row of the directory, with a unique id, tax id and domain; returns its id and domain. */
export const insertCompany = (overrides: { readonly city?: string; readonly domain?: string } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tag = suffix()
    const id = `co_${tag}`
    const domain = overrides.domain ?? `empresa-${tag}.cl`
    yield* sql`INSERT INTO companies (id, country, tax_id, legal_name, trade_name, industry, size, employees, region, city, domain,
      founded_year, revenue_estimate)
      VALUES (${id}, 'CL', ${`76.${tag}-5`}, ${`Empresa ${tag} SpA`}, ${`Empresa ${tag}`}, 'software', 'mediana', 120, 'RM',
        ${overrides.city ?? "Santiago"}, ${domain}, 2011, 2500000000)`
    return { id, domain, taxId: `76.${tag}-5` }
  })

export const insertPerson = (companyId: string, email: string | null = null) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const id = `pe_${suffix()}`
    yield* sql`INSERT INTO people (id, company_id, first_name, last_name, full_name, title, department, seniority, country, region, email)
      VALUES (${id}, ${companyId}, 'Ana', 'Rojas', 'Ana Rojas', 'Gerente de Finanzas', 'finanzas', 'manager', 'CL', 'RM', ${email})`
    return id
  })

/** A contact the workspace revealed, as people_reveal records it. */
export const reveal = (workspaceId: string, personId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`INSERT INTO revealed_contacts (workspace_id, person_id, revealed_at, request_id)
      VALUES (${workspaceId}, ${personId}, now(), 'req_testreveal') ON CONFLICT DO NOTHING`
  })
