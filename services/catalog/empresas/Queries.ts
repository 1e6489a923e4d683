import { COUNT_CAP } from "../../../schema/catalog/Empresas.ts"

/** What a companies search filters on, normalized (region as its code, the name as folded words). */
export interface CompanyFilter {
  readonly words: ReadonlyArray<string>
  readonly country?: string
  readonly region?: string
  readonly industry?: string
  readonly size?: string
  readonly employeesMin?: number
  readonly employeesMax?: number
  readonly taxId?: string
}

export interface PersonFilter {
  readonly titleWords: ReadonlyArray<string>
  readonly nameWords: ReadonlyArray<string>
  readonly companyId?: string
  readonly country?: string
  readonly region?: string
  readonly seniority?: string
  readonly department?: string
}

export interface Query {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

const where = (clauses: ReadonlyArray<readonly [string, unknown] | undefined>) => {
  const params: Array<unknown> = []
  const parts: Array<string> = []
  for (const clause of clauses) {
    if (clause === undefined) continue
    params.push(clause[1])
    parts.push(clause[0].replaceAll("?", `$${params.length}`))
  }
  return { parts, params }
}

const when = <A>(value: A | undefined, clause: string): readonly [string, unknown] | undefined =>
  value === undefined ? undefined : [clause, value]

// A word is matched as a substring of the folded name: the trigram index answers it.
const contains = (column: string, words: ReadonlyArray<string>) => words.map((w) => [`${column} LIKE ?`, `%${w}%`] as const)

const companyClauses = (f: CompanyFilter) => [
  when(f.country, "country = ?"),
  when(f.region, "region = ?"),
  when(f.industry, "industry = ?"),
  when(f.size, "size = ?"),
  when(f.employeesMin, "employees >= ?"),
  when(f.employeesMax, "employees <= ?"),
  when(f.taxId, "tax_id = ?"),
  ...contains("name_folded", f.words)
]

const personClauses = (f: PersonFilter) => [
  when(f.companyId, "p.company_id = ?"),
  when(f.country, "p.country = ?"),
  when(f.region, "p.region = ?"),
  when(f.seniority, "p.seniority = ?"),
  when(f.department, "p.department = ?"),
  ...contains("p.title_folded", f.titleWords),
  ...contains("p.name_folded", f.nameWords)
]

const COMPANY_COLUMNS = "id, country, tax_id, legal_name, trade_name, industry, size, employees, region, city, domain"

const page = (
  columns: string,
  from: string,
  key: string,
  clauses: ReadonlyArray<readonly [string, unknown] | undefined>,
  after: string | null,
  limit: number
): Query => {
  const { parts, params } = where([...clauses, when(after ?? undefined, `${key} > ?`)])
  params.push(limit + 1)
  return {
    text: `SELECT ${columns} FROM ${from}${
      parts.length === 0 ? "" : ` WHERE ${parts.join(" AND ")}`
    } ORDER BY ${key} LIMIT $${params.length}`,
    params
  }
}

const count = (from: string, clauses: ReadonlyArray<readonly [string, unknown] | undefined>): Query => {
  const { parts, params } = where(clauses)
  return {
    text: `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${from}${parts.length === 0 ? "" : ` WHERE ${parts.join(" AND ")}`} LIMIT ${
      COUNT_CAP + 1
    }) matches`,
    params
  }
}

/** One page of companies after `after` (by id): `limit + 1` rows, the last one only says more follow. */
export const companiesPage = (f: CompanyFilter, after: string | null, limit: number) =>
  page(COMPANY_COLUMNS, "companies", "id", companyClauses(f), after, limit)

/** Companies matching, counted up to one past COUNT_CAP. */
export const companiesCount = (f: CompanyFilter) => count("companies", companyClauses(f))

const PERSON_COLUMNS = `p.id, p.company_id, c.trade_name AS company_name, p.full_name, p.title, p.department, p.seniority, p.country,
  p.region, p.email IS NOT NULL AS has_email, p.phone IS NOT NULL AS has_phone`
const PEOPLE = "people p JOIN companies c ON c.id = p.company_id"

export const peoplePage = (f: PersonFilter, after: string | null, limit: number) =>
  page(PERSON_COLUMNS, PEOPLE, "p.id", personClauses(f), after, limit)

export const peopleCount = (f: PersonFilter) => count("people p", personClauses(f))

export const companyColumns = COMPANY_COLUMNS
export const personColumns = PERSON_COLUMNS
export const peopleFrom = PEOPLE
