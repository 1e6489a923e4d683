import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Schema, TestClock } from "effect"
import {
  CompaniesSearchOutput,
  Company,
  ListGetOutput,
  ListSaveOutput,
  PeopleSearchOutput,
  Person
} from "../../../../schema/catalog/Empresas.ts"
import type { Principal } from "../../../../schema/Principal.ts"
import { DirectorySeed } from "../../../../services/catalog/empresas/DirectorySeed.ts"
import { Executor } from "../../../../services/pipeline/Executor.ts"
import { refused } from "../../../support/Refused.ts"
import { callContext, issuePrincipal, ServicesTest } from "../../../support/TestLayers.ts"

const SEED = "tools-test"
const Seeded = Layer.effectDiscard(Effect.flatMap(DirectorySeed, (seed) => seed.load({ seed: SEED, companies: 600 }))).pipe(
  Layer.provideMerge(ServicesTest)
)

const call = (principal: Principal, toolId: string, input: unknown) =>
  Effect.flatMap(Executor, (executor) => executor.call(toolId, input, callContext(principal, { surface: "http" })))

const as = <A, I>(schema: Schema.Schema<A, I>) => (response: { readonly data: unknown }) => Schema.decodeUnknownSync(schema)(response.data)

const failure = (principal: Principal, toolId: string, input: unknown) =>
  Effect.map(refused(call(principal, toolId, input), toolId), (error) => ({
    tag: error._tag,
    paths: error._tag === "InvalidInput" ? error.issues.map((i) => i.path) : [],
    reason: error._tag === "CursorRejected" ? error.reason : undefined,
    message: error.message
  }))

const principalOf = (plan: "free" | "paid" = "free") => Effect.map(issuePrincipal(plan), (issued) => issued.principal)

layer(Seeded, { timeout: 120_000 })("empresas tools", (it) => {
  it.effect("companies_search: filters, ref, search_id, total and next actions", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const response = yield* call(principal, "companies_search", { country: "MX", region: "CDMX", limit: 5 })
      const page = as(CompaniesSearchOutput)(response)
      assert.isAbove(page.total, 5)
      assert.isFalse(page.total_is_lower_bound)
      assert.strictEqual(page.companies.length, 5)
      for (const c of page.companies) assert.deepStrictEqual([c.country, c.region, c.region_name], ["MX", "MX-CMX", "Ciudad de México"])
      assert.strictEqual(page.ref, `companies_search:${page.search_id}`)
      assert.isNotNull(page.cursor)
      assert.deepStrictEqual(response.next_actions?.map((a) => a.tool), ["people_search", "list_save"])
      const again = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { region: "MX-CMX", country: "MX", limit: 5 }))
      assert.strictEqual(again.search_id, page.search_id)
      assert.strictEqual(response.meta.audit_status, "recorded")
    }))

  it.effect("companies_search: the name query ignores case and accents both ways", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE companies SET legal_name = 'Compañía Minera Ñandú SpA' WHERE id = (SELECT min(id) FROM companies WHERE country = 'CL')`
      const plain = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { q: "compania minera nandu" }))
      const accented = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { q: "COMPAÑÍA  Ñandú" }))
      assert.deepStrictEqual(plain.companies.map((c) => c.legal_name), ["Compañía Minera Ñandú SpA"])
      assert.deepStrictEqual(accented.companies.map((c) => c.id), plain.companies.map((c) => c.id))
      const none = yield* call(principal, "companies_search", { q: "zzqqxx" })
      assert.strictEqual(as(CompaniesSearchOutput)(none).total, 0)
      assert.include(none.hint ?? "", "No companies match")
    }))

  it.effect("companies_search: letters without a mark fold as the stored names do, and other scripts are words too", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE companies SET legal_name = 'Østra Straße Bäckerei Ltda' WHERE id = (SELECT max(id) FROM companies WHERE country = 'CL')`
      const folded = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { q: "ostra strasse" }))
      const spelled = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { q: "ØSTRA Straße" }))
      assert.deepStrictEqual(folded.companies.map((c) => c.legal_name), ["Østra Straße Bäckerei Ltda"])
      assert.deepStrictEqual(spelled.companies.map((c) => c.id), folded.companies.map((c) => c.id))
      // a word that is in no name matches nothing (ß was a space: "ßtraße" searched for "tra")
      assert.strictEqual(as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { q: "ßtraße" })).total, 0)
      for (const q of ["Привет", "שלום", "日本語"]) {
        assert.strictEqual(as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { q })).total, 0, q)
      }
    }))

  it.effect("companies_search: keyset pages cover every match once, in id order", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const input = { country: "CL", limit: 17 }
      const first = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", input))
      const seen = [...first.companies.map((c) => c.id)]
      let cursor = first.cursor
      while (cursor !== null) {
        const next = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { ...input, cursor }))
        assert.strictEqual(next.total, first.total)
        seen.push(...next.companies.map((c) => c.id))
        cursor = next.cursor
      }
      assert.strictEqual(seen.length, first.total)
      assert.deepStrictEqual(seen, [...seen].sort())
      assert.strictEqual(new Set(seen).size, seen.length)
      const wrong = yield* failure(principal, "companies_search", { country: "MX", limit: 17, cursor: first.cursor })
      assert.deepStrictEqual([wrong.tag, wrong.reason], ["CursorRejected", "other_search"])
    }))

  it.effect("companies_search and people_search: a forged, altered or foreign cursor is refused as CursorRejected", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const input = { country: "CL", limit: 5 }
      const first = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", input))
      assert.isNotNull(first.cursor)
      const cursor = first.cursor ?? ""
      const forged = Buffer.from(JSON.stringify({ s: first.search_id, a: "co_zzzz", t: 1, l: false }), "utf8").toString("base64url")
      const refused = yield* failure(principal, "companies_search", { ...input, cursor: forged })
      assert.deepStrictEqual([refused.tag, refused.reason], ["CursorRejected", "tampered"])
      const altered = `${cursor.slice(0, 4)}${cursor[4] === "A" ? "B" : "A"}${cursor.slice(5)}`
      const tampered = yield* failure(principal, "companies_search", { ...input, cursor: altered })
      assert.deepStrictEqual([tampered.tag, tampered.reason], ["CursorRejected", "tampered"])
      const foreign = yield* failure(yield* principalOf(), "companies_search", { ...input, cursor })
      assert.deepStrictEqual([foreign.tag, foreign.reason], ["CursorRejected", "foreign_workspace"])
      const people = as(PeopleSearchOutput)(yield* call(principal, "people_search", { country: "CL", limit: 5 }))
      assert.isNotNull(people.cursor)
      const crossed = yield* failure(principal, "people_search", { country: "CL", limit: 5, cursor })
      assert.deepStrictEqual([crossed.tag, crossed.reason], ["CursorRejected", "other_search"])
      const long = yield* failure(principal, "people_search", { country: "CL", cursor: "a".repeat(1001) })
      assert.deepStrictEqual([long.tag, long.paths], ["InvalidInput", ["input.cursor"]])
    }))

  it.effect("companies_search: bad inputs are refused with the field named", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const region = yield* failure(principal, "companies_search", { region: "Texas" })
      assert.deepStrictEqual([region.tag, region.paths], ["InvalidInput", ["input.region"]])
      assert.include(region.message, "unknown region")
      const limit = yield* failure(principal, "companies_search", { limit: 101 })
      assert.deepStrictEqual(limit.paths, ["input.limit"])
      const rut = yield* failure(principal, "companies_search", { tax_id: "76123456-7" })
      assert.deepStrictEqual(rut.paths, ["input.tax_id"])
      const mismatch = yield* failure(principal, "companies_search", { country: "CL", region: "Jalisco" })
      assert.deepStrictEqual(mismatch.paths, ["input.region"])
      assert.include(mismatch.message, "input.region MX-JAL is not a region of CL")
      const range = yield* failure(principal, "companies_search", { employees_min: 50, employees_max: 10 })
      assert.deepStrictEqual(range.paths, ["input.employees_max"])
      // a rule across two fields reads as a sentence after the field it is reported on
      assert.include(range.message, "input.employees_max must not be below employees_min")
      const short = yield* failure(principal, "companies_search", { q: "a b" })
      assert.deepStrictEqual(short.paths, ["input.q"])
      // what is wrong with q is said as it is: not a string, or too short
      const number = yield* failure(principal, "companies_search", { q: 5 })
      assert.deepStrictEqual(number.paths, ["input.q"])
      assert.include(number.message, "must be a string, got 5")
      const letter = yield* failure(principal, "companies_search", { q: " a " })
      assert.include(letter.message, "must be 2 to 100 characters")
    }))

  it.effect("companies_search: employees past what the directory's integer column holds are refused with the range", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const refusals = [
        ["employees_min", 2_147_483_648],
        ["employees_max", 2_147_483_648],
        ["employees_min", Number.MAX_SAFE_INTEGER],
        ["employees_max", 1e300]
      ] as const
      for (const [field, value] of refusals) {
        const refusal = yield* failure(principal, "companies_search", { [field]: value })
        assert.deepStrictEqual([refusal.tag, refusal.paths], ["InvalidInput", [`input.${field}`]], `${field} ${value}`)
        assert.include(refusal.message, `input.${field} must be between 1 and 2,147,483,647, got `, `${field} ${value}`)
      }
      const widest = as(CompaniesSearchOutput)(
        yield* call(principal, "companies_search", { country: "CL", employees_min: 1, employees_max: 2_147_483_647, limit: 1 })
      )
      assert.isAbove(widest.total, 0)
    }))

  it.effect("company_get and a search by tax id find the same company; an unknown id is RecordNotFound", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const [first] = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { country: "MX", limit: 1 })).companies
      assert.isDefined(first)
      if (first === undefined) return
      const company = as(Company)(yield* call(principal, "company_get", { id: first.id }))
      assert.strictEqual(company.tax_id, first.tax_id)
      assert.isAbove(company.people, 0)
      const byTax = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { tax_id: first.tax_id.toLowerCase() }))
      assert.deepStrictEqual(byTax.companies.map((c) => c.id), [first.id])
      const missing = yield* failure(principal, "company_get", { id: "co_nothere" })
      assert.strictEqual(missing.tag, "RecordNotFound")
      const malformed = yield* failure(principal, "company_get", { id: "pe_123" })
      assert.deepStrictEqual(malformed.paths, ["input.id"])
    }))

  it.effect("people_search and person_get never show email or phone, only whether they are on file", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const [company] = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { size: "grande", limit: 1 })).companies
      if (company === undefined) return assert.fail("no large company")
      const response = yield* call(principal, "people_search", { company_id: company.id })
      const people = as(PeopleSearchOutput)(response)
      assert.isAbove(people.people.length, 2)
      assert.strictEqual(people.people[0]?.title, "Gerente General")
      const text = JSON.stringify(response)
      assert.notInclude(text, "@")
      assert.notInclude(text, "+56")
      assert.notInclude(text, "+52")
      const sql = yield* SqlClient.SqlClient
      const [withContact] = yield* sql<{ id: string; email: string | null; phone: string | null }>`
        SELECT id, email, phone FROM people WHERE company_id = ${company.id} ORDER BY id LIMIT 1`
      const person = as(Person)(yield* call(principal, "person_get", { id: people.people[0]?.id }))
      assert.deepStrictEqual([person.has_email, person.has_phone], [withContact?.email !== null, withContact?.phone !== null])
      assert.strictEqual(person.company.id, company.id)
      assert.notInclude(JSON.stringify(person), "@")
      const managers = as(PeopleSearchOutput)(
        yield* call(principal, "people_search", { title: "GERENTE general", seniority: "c_level", limit: 100 })
      )
      assert.isAbove(managers.total, 100)
      for (const p of managers.people) assert.strictEqual(p.title, "Gerente General")
      const unknown = yield* failure(principal, "people_search", { company_id: "co_nothere" })
      assert.strictEqual(unknown.tag, "RecordNotFound")
      const bad = yield* failure(principal, "people_search", { seniority: "intern" })
      assert.deepStrictEqual(bad.paths, ["input.seniority"])
    }))

  it.effect("list_save keeps order and drops duplicates; list_get resolves the items by pages", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const ids = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { country: "CL", limit: 30 })).companies.map((c) =>
        c.id
      )
      const saved = as(ListSaveOutput)(
        yield* call(principal, "list_save", { name: "Objetivos", kind: "companies", ids: [...ids, ids[0], ids[1]] })
      )
      assert.deepStrictEqual([saved.items, saved.duplicates_removed, saved.replaced], [30, 2, false])
      const first = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Objetivos", limit: 20 }))
      assert.strictEqual(first.total, 30)
      assert.deepStrictEqual(first.items.map((i) => i.id), ids.slice(0, 20))
      assert.isTrue(first.items.every((i) => i.found && i.company !== undefined))
      const rest = as(ListGetOutput)(yield* call(principal, "list_get", { list_id: saved.list_id, limit: 20, cursor: first.cursor }))
      assert.deepStrictEqual(rest.items.map((i) => i.id), ids.slice(20))
      assert.isNull(rest.cursor)
      const again = as(ListSaveOutput)(
        yield* call(principal, "list_save", { name: "Objetivos", kind: "companies", ids: ids.slice(0, 3).reverse() })
      )
      assert.deepStrictEqual([again.list_id, again.replaced, again.items], [saved.list_id, true, 3])
      const replaced = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Objetivos" }))
      assert.deepStrictEqual(replaced.items.map((i) => i.id), ids.slice(0, 3).reverse())
    }))

  it.effect("a list_get cursor is of the version it was made on: once the list is saved again it is refused", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const ids = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { country: "CL", limit: 30 })).companies.map((c) =>
        c.id
      )
      yield* call(principal, "list_save", { name: "Cambiante", kind: "companies", ids })
      const first = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Cambiante", limit: 20 }))
      assert.isNotNull(first.cursor)
      yield* TestClock.adjust("1 second")
      yield* call(principal, "list_save", { name: "Cambiante", kind: "companies", ids: [...ids].reverse() })
      const stale = yield* failure(principal, "list_get", { name: "Cambiante", limit: 20, cursor: first.cursor })
      assert.deepStrictEqual([stale.tag, stale.reason], ["CursorRejected", "stale"])
      const fresh = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Cambiante", limit: 20 }))
      assert.notStrictEqual(fresh.ref, first.ref)
      const rest = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Cambiante", limit: 20, cursor: fresh.cursor }))
      assert.deepStrictEqual([...fresh.items, ...rest.items].map((i) => i.id), [...ids].reverse())
    }))

  it.effect("a list_get cursor is sealed: an edited, forged, garbage, foreign or other list's cursor is refused as CursorRejected", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const ids = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { country: "CL", limit: 30 })).companies.map((c) =>
        c.id
      )
      yield* call(principal, "list_save", { name: "Posiciones", kind: "companies", ids })
      yield* call(principal, "list_save", { name: "Otra", kind: "companies", ids })
      const first = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Posiciones", limit: 20 }))
      const cursor = first.cursor ?? ""
      const [body = "", signature = ""] = cursor.split(".")
      const claims = Schema.decodeUnknownSync(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown })))(
        Buffer.from(body, "base64url").toString("utf8")
      )
      const refusal = (sent: string) =>
        Effect.map(failure(principal, "list_get", { name: "Posiciones", limit: 20, cursor: sent }), (f) => [f.tag, f.reason])
      for (const id of ["2147483648", "-1", "co_zzzz", "0"]) {
        const edited = Buffer.from(JSON.stringify({ ...claims, position: { at: null, id } }), "utf8").toString("base64url")
        assert.deepStrictEqual(yield* refusal(`${edited}.${signature}`), ["CursorRejected", "tampered"], id)
      }
      const altered = `${cursor.slice(0, 4)}${cursor[4] === "A" ? "B" : "A"}${cursor.slice(5)}`
      assert.deepStrictEqual(yield* refusal(altered), ["CursorRejected", "tampered"])
      const unsigned = Buffer.from(JSON.stringify({ s: first.ref, a: 5, t: 30, l: false }), "utf8").toString("base64url")
      assert.deepStrictEqual(yield* refusal(unsigned), ["CursorRejected", "tampered"])
      assert.deepStrictEqual(yield* refusal("garbage"), ["CursorRejected", "tampered"])
      const stranger = yield* principalOf()
      yield* call(stranger, "list_save", { name: "Posiciones", kind: "companies", ids })
      const foreign = yield* failure(stranger, "list_get", { name: "Posiciones", limit: 20, cursor })
      assert.deepStrictEqual([foreign.tag, foreign.reason], ["CursorRejected", "foreign_workspace"])
      const other = yield* failure(principal, "list_get", { name: "Otra", limit: 20, cursor })
      assert.deepStrictEqual([other.tag, other.reason], ["CursorRejected", "other_search"])
      const rest = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Posiciones", limit: 20, cursor }))
      assert.deepStrictEqual(rest.items.map((i) => i.id), ids.slice(20))
    }))

  it.effect("each list_save is a new version even in the same millisecond or with the clock set back: the older cursor is refused", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const ids = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", { country: "CL", limit: 30 })).companies.map((c) =>
        c.id
      )
      const saves = [ids, [...ids].reverse(), ids.slice(5)]
      const seen: Array<{ readonly ref: string; readonly updatedAt: string; readonly cursor: string | null }> = []
      for (const [i, items] of saves.entries()) {
        // the second save in the same instant as the first (the test clock stands still); the third an hour back
        if (i === 2) yield* TestClock.setTime(Date.parse(seen[0]!.updatedAt) - 3_600_000)
        const saved = as(ListSaveOutput)(yield* call(principal, "list_save", { name: "Mismo instante", kind: "companies", ids: items }))
        const got = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Mismo instante", limit: 20 }))
        assert.strictEqual(saved.ref, got.ref, "list_save answers the ref list_get then cites")
        seen.push({ ref: got.ref, updatedAt: got.updated_at, cursor: got.cursor })
      }
      assert.strictEqual(new Set(seen.map((v) => v.ref)).size, 3, seen.map((v) => v.ref).join(" "))
      const stamps = seen.map((v) => Date.parse(v.updatedAt))
      assert.isTrue(stamps[0]! < stamps[1]! && stamps[1]! < stamps[2]!, `versions move forward: ${seen.map((v) => v.updatedAt).join(" ")}`)
      for (const older of seen.slice(0, 2)) {
        const stale = yield* failure(principal, "list_get", { name: "Mismo instante", limit: 20, cursor: older.cursor })
        assert.deepStrictEqual([stale.tag, stale.reason], ["CursorRejected", "stale"])
      }
      const rest = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Mismo instante", limit: 20, cursor: seen[2]!.cursor }))
      assert.deepStrictEqual(rest.items.map((i) => i.id), ids.slice(25))
    }))

  it.effect("list_save is all or nothing: an unknown id fails the call and the previous list stays", () =>
    Effect.gen(function* () {
      const principal = yield* principalOf()
      const people = as(PeopleSearchOutput)(yield* call(principal, "people_search", { department: "ventas", limit: 5 })).people.map((p) =>
        p.id
      )
      yield* call(principal, "list_save", { name: "Contactos", kind: "people", ids: people })
      const failed = yield* failure(principal, "list_save", {
        name: "Contactos",
        kind: "people",
        ids: [people[0], "pe_missing1", "pe_missing2"]
      })
      assert.strictEqual(failed.tag, "RecordNotFound")
      assert.include(failed.message, "pe_missing1")
      const kept = as(ListGetOutput)(yield* call(principal, "list_get", { name: "Contactos" }))
      assert.deepStrictEqual(kept.items.map((i) => i.id), people)
      assert.isTrue(kept.items.every((i) => i.person !== undefined && !JSON.stringify(i.person).includes("@")))
      const wrongKind = yield* failure(principal, "list_save", { name: "Contactos", kind: "companies", ids: people })
      assert.deepStrictEqual(wrongKind.paths, ["input.ids.0"])
      const tooMany = yield* failure(principal, "list_save", {
        name: "Grande",
        kind: "people",
        ids: Array.from({ length: 1001 }, (_, i) => `pe_${i}`)
      })
      assert.deepStrictEqual(tooMany.paths, ["input.ids"])
    }))

  it.effect("a list belongs to its workspace: another workspace does not find it, and keeps its own of the same name", () =>
    Effect.gen(function* () {
      const owner = yield* principalOf()
      const other = yield* principalOf("paid")
      const ids = as(CompaniesSearchOutput)(yield* call(owner, "companies_search", { country: "MX", limit: 4 })).companies.map((c) => c.id)
      const saved = as(ListSaveOutput)(yield* call(owner, "list_save", { name: "Privada", kind: "companies", ids }))
      const byName = yield* failure(other, "list_get", { name: "Privada" })
      const byId = yield* failure(other, "list_get", { list_id: saved.list_id })
      assert.deepStrictEqual([byName.tag, byId.tag], ["RecordNotFound", "RecordNotFound"])
      yield* call(other, "list_save", { name: "Privada", kind: "companies", ids: ids.slice(0, 1) })
      const mine = as(ListGetOutput)(yield* call(owner, "list_get", { name: "Privada" }))
      assert.strictEqual(mine.total, 4)
    }))
})

describe("directory seed", () => {
  layer(ServicesTest, { timeout: 120_000 })("reload", (it) => {
    it.effect("loading the same seed twice gives the same rows; an empty directory is loaded once", () =>
      Effect.gen(function* () {
        const seed = yield* DirectorySeed
        const sql = yield* SqlClient.SqlClient
        const first = yield* seed.loadIfEmpty({ seed: "reload", companies: 120 })
        assert.strictEqual(first?.companies, 120)
        assert.isUndefined(yield* seed.loadIfEmpty({ seed: "reload", companies: 120 }))
        const snapshot = sql<{ digest: string }>`SELECT md5(string_agg(c::text, '|' ORDER BY c.id)) AS digest FROM companies c`
        const before = yield* snapshot
        yield* seed.load({ seed: "reload", companies: 120 })
        assert.deepStrictEqual(yield* snapshot, before)
        const other = yield* seed.load({ seed: "other", companies: 80 })
        assert.strictEqual(other.companies, 80)
        assert.notDeepEqual(yield* snapshot, before)
        const indexes = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'companies_name_trgm'`
        assert.strictEqual(indexes[0]?.n, 1)
      }))
  })
})

describe("an unloaded directory", () => {
  layer(ServicesTest, { timeout: 120_000 })("never seeded", (it) => {
    it.effect("every directory tool says the directory is not loaded and how to load it; once loaded, searches answer as before", () =>
      Effect.gen(function* () {
        const principal = yield* principalOf("paid")
        const tools: ReadonlyArray<readonly [string, object]> = [
          ["companies_search", {}],
          ["companies_search", { q: "constructora", country: "CL" }],
          ["people_search", {}],
          // before the company it names is looked up
          ["people_search", { company_id: "co_nothere" }],
          ["company_get", { id: "co_nothere" }],
          ["person_get", { id: "pe_nothere" }],
          ["list_save", { name: "Objetivos", kind: "companies", ids: ["co_nothere"] }],
          ["list_get", { name: "Objetivos" }],
          // the quotes: "not_found" items would read as ids that do not exist
          ["people_reveal", { person_ids: ["pe_nothere"] }],
          ["company_enrich", { company_ids: ["co_nothere"] }]
        ]
        for (const [tool, input] of tools) {
          const error = yield* refused(call(principal, tool, input), tool)
          assert.strictEqual(error._tag, "RecordNotFound", tool)
          if (error._tag !== "RecordNotFound") continue
          assert.deepStrictEqual([error.kind, error.ids], ["directory", []], tool)
          assert.include(error.message, "no directory of companies and people is loaded", tool)
          assert.include(error.hint ?? "", "brein seed", tool)
          assert.include(error.hint ?? "", "BREIN_SEED_DIRECTORY=true", tool)
        }

        yield* Effect.flatMap(DirectorySeed, (seed) => seed.load({ seed: "unloaded", companies: 40 }))
        const all = as(CompaniesSearchOutput)(yield* call(principal, "companies_search", {}))
        assert.strictEqual(all.total, 40)
        assert.isAbove(as(PeopleSearchOutput)(yield* call(principal, "people_search", {})).total, 0)
        const none = yield* call(principal, "companies_search", { q: "zzqqxx" })
        assert.strictEqual(as(CompaniesSearchOutput)(none).total, 0)
        assert.include(none.hint ?? "", "No companies match these filters")
        const unknown = yield* refused(call(principal, "company_get", { id: "co_nothere" }), "company_get")
        assert.deepStrictEqual(unknown._tag === "RecordNotFound" ? [unknown.kind, unknown.ids] : [], ["company", ["co_nothere"]])
      }))
  })
})
