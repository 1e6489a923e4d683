import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { servicesWith } from "../../../../layers/App.ts"
import { crmSimulated } from "../../../../layers/Crm.ts"
import { LookupOutput, SaveOutput } from "../../../../schema/catalog/Crm.ts"
import type { Principal } from "../../../../schema/Principal.ts"
import { CrmDirectory } from "../../../../services/catalog/crm/CrmDirectory.ts"
import { CrmCatalog } from "../../../../services/catalog/crm/Tools.ts"
import { CrmClient } from "../../../../services/crm/CrmClient.ts"
import { Executor } from "../../../../services/pipeline/Executor.ts"
import { CrmFault, CrmSimulatorControl } from "../../../../services/simulators/crm/CrmSimulatorServer.ts"
import { refused } from "../../../support/Refused.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { callContext, issuePrincipal } from "../../../support/TestLayers.ts"
import { insertCompany, insertPerson, reveal } from "./DirectoryRows.ts"

const Services = servicesWith([CrmCatalog]).pipe(
  Layer.provideMerge(Layer.merge(crmSimulated({ latencyMs: 0 }), CrmDirectory.Default)),
  Layer.provideMerge(TestDatabase)
)

const decodeLookup = Schema.decodeUnknown(LookupOutput)
const decodeSave = Schema.decodeUnknown(SaveOutput)

const call = (principal: Principal, toolId: string, input: unknown) =>
  Effect.flatMap(Executor, (executor) => executor.call(toolId, input, callContext(principal, { surface: "http" })))

const lookup = (principal: Principal, input: unknown) =>
  Effect.flatMap(
    call(principal, "crm_lookup", input),
    (response) => Effect.map(decodeLookup(response.data), (data) => ({ response, data }))
  )

const save = (principal: Principal, input: unknown) =>
  Effect.flatMap(call(principal, "crm_save", input), (response) => Effect.map(decodeSave(response.data), (data) => ({ response, data })))

const issuePaths = (principal: Principal, toolId: string, input: unknown) =>
  Effect.map(
    refused(call(principal, toolId, input), toolId),
    (error) => error._tag === "InvalidInput" ? error.issues.map((i) => i.path) : [error._tag]
  )

const upserts = (workspaceId: string) =>
  Effect.map(
    Effect.flatMap(CrmSimulatorControl, (control) => control.log),
    (log) => log.filter((entry) => entry.portal === workspaceId && entry.path.includes("/batch/upsert")).length
  )

layer(Services)("crm tools over the CRM simulator", (it) => {
  it.effect("lookup: not in the CRM, then saved and found by brein_id; a hand-made record found by domain", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const acme = yield* insertCompany()
      const bravo = yield* insertCompany()
      const ana = yield* insertPerson(acme.id)
      const before = yield* lookup(principal, { company_ids: [acme.id, bravo.id], person_ids: [ana] })
      assert.deepStrictEqual(before.data.counts, { in_crm: 0, not_in_crm: 3, not_found: 0 })
      assert.deepStrictEqual(before.response.next_actions?.map((a) => [a.tool, a.input]), [[
        "crm_save",
        { company_ids: [acme.id, bravo.id], person_ids: [ana] }
      ]])
      assert.deepStrictEqual([before.response.meta.plane, before.response.meta.audit_status], ["action", "recorded"])

      yield* save(principal, { company_ids: [acme.id], person_ids: [ana] })
      const crm = yield* CrmClient
      yield* crm.batchUpsert(principal.workspaceId, "companies", [{
        idProperty: "brein_id",
        id: "hecho-a-mano-1",
        properties: { name: "Bravo (a mano)", domain: bravo.domain.toUpperCase() }
      }])
      const after = yield* lookup(principal, { company_ids: [acme.id, bravo.id, "co_nohay"], person_ids: [ana] })
      assert.deepStrictEqual(after.data.counts, { in_crm: 3, not_in_crm: 0, not_found: 1 })
      assert.strictEqual(after.data.total, 4)
      assert.deepStrictEqual(after.data.companies.map((c) => [c.id, c.status, c.matched_by]), [
        [acme.id, "in_crm", "brein_id"],
        [bravo.id, "in_crm", "domain"],
        ["co_nohay", "not_found", undefined]
      ])
      const acmeCrm = after.data.companies[0]
      assert.strictEqual(acmeCrm?.crm_ref, `crm:companies/${acmeCrm?.crm_id ?? ""}`)
      assert.deepStrictEqual(after.data.people.map((p) => [p.status, p.matched_by]), [["in_crm", "brein_id"]])
      assert.strictEqual(after.response.next_actions, undefined)
      assert.match(after.data.ref, /^crm_lookup:req_/)
    }))

  it.effect("bad inputs: malformed ids, more than 100, none at all, and ids the directory does not have", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      assert.deepStrictEqual(yield* issuePaths(principal, "crm_lookup", { company_ids: ["pe_1", "co_ok"] }), ["input.company_ids.0"])
      const many = Array.from({ length: 101 }, (_, i) => `co_${i}`)
      assert.deepStrictEqual(yield* issuePaths(principal, "crm_lookup", { company_ids: many }), ["input.company_ids"])
      const split = { company_ids: many.slice(0, 60), person_ids: many.slice(0, 41).map((id) => id.replace("co_", "pe_")) }
      assert.deepStrictEqual(yield* issuePaths(principal, "crm_save", split), ["input.person_ids"])
      assert.deepStrictEqual(yield* issuePaths(principal, "crm_lookup", {}), ["input.company_ids"])
      assert.deepStrictEqual(yield* issuePaths(principal, "crm_save", { company_ids: [] }), ["input.company_ids"])
      assert.deepStrictEqual(yield* issuePaths(principal, "crm_save", { company_ids: ["co_nohay"], person_ids: ["pe_nohay"] }), [
        "input.company_ids.0",
        "input.person_ids.0"
      ])
      assert.strictEqual(yield* upserts(principal.workspaceId), 0)
    }))

  it.effect("save: created, then unchanged without writing again, then updated when the directory changed", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const acme = yield* insertCompany()
      const ana = yield* insertPerson(acme.id)
      const input = { company_ids: [acme.id], person_ids: [ana] }
      const first = yield* save(principal, input)
      assert.deepStrictEqual(first.data.counts, { created: 2, updated: 0, unchanged: 0, failed: 0, not_found: 0 })
      assert.strictEqual(yield* upserts(principal.workspaceId), 2)
      const second = yield* save(principal, input)
      assert.deepStrictEqual(second.data.counts, { created: 0, updated: 0, unchanged: 2, failed: 0, not_found: 0 })
      assert.deepStrictEqual(second.data.companies.map((c) => c.crm_id), first.data.companies.map((c) => c.crm_id))
      assert.strictEqual(yield* upserts(principal.workspaceId), 2, "an identical save sends nothing")

      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE companies SET city = 'Concepción' WHERE id = ${acme.id}`
      const third = yield* save(principal, input)
      assert.deepStrictEqual(third.data.counts, { created: 0, updated: 1, unchanged: 1, failed: 0, not_found: 0 })
      assert.deepStrictEqual(third.data.companies.map((c) => [c.status, c.changed]), [["updated", ["city"]]])
      const contact = yield* (yield* CrmClient).get(principal.workspaceId, "contacts", first.data.people[0]?.crm_id ?? "")
      assert.strictEqual(Option.map(contact, (c) => c.properties["company"]).pipe(Option.getOrNull), yield* companyName(acme.id))
      assert.strictEqual(Option.map(contact, (c) => c.properties["email"] ?? null).pipe(Option.getOrNull), null)
      assert.strictEqual(first.response.warnings?.length, 1, "saved without email: not revealed")
    }))

  it.effect("save: a person saved before their company is linked to it when saved again after the company, then unchanged", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const acme = yield* insertCompany()
      const ana = yield* insertPerson(acme.id)
      const alone = yield* save(principal, { person_ids: [ana] })
      assert.deepStrictEqual(alone.data.people.map((p) => [p.status, p.linked_company]), [["created", undefined]])
      assert.deepStrictEqual(alone.response.next_actions?.map((a) => [a.tool, a.input]), [["crm_save", { company_ids: [acme.id] }]])
      const company = yield* save(principal, { company_ids: [acme.id] })
      const companyId = company.data.companies[0]?.crm_id
      const contactId = alone.data.people[0]?.crm_id ?? ""
      assert.deepStrictEqual(yield* linksOf(contactId), [])

      const again = yield* save(principal, { person_ids: [ana] })
      assert.deepStrictEqual(again.data.people.map((p) => [p.status, p.crm_id, p.changed, p.linked_company]), [[
        "updated",
        contactId,
        [],
        companyId
      ]])
      assert.deepStrictEqual(again.data.counts, { created: 0, updated: 1, unchanged: 0, failed: 0, not_found: 0 })
      assert.strictEqual(again.response.next_actions, undefined)
      assert.deepStrictEqual(yield* linksOf(contactId), [companyId])

      const third = yield* save(principal, { company_ids: [acme.id], person_ids: [ana] })
      assert.deepStrictEqual(third.data.counts, { created: 0, updated: 0, unchanged: 2, failed: 0, not_found: 0 })
      assert.deepStrictEqual(yield* linksOf(contactId), [companyId])
    }))

  it.effect("save: a record the CRM refuses is reported failed beside the saved ones; only revealed emails are sent", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const acme = yield* insertCompany()
      const good = yield* insertPerson(acme.id, "ana.rojas@empresa.cl")
      const bad = yield* insertPerson(acme.id, "no es un correo")
      const hidden = yield* insertPerson(acme.id, "oculta@empresa.cl")
      yield* reveal(principal.workspaceId, good)
      yield* reveal(principal.workspaceId, bad)
      const saved = yield* save(principal, { company_ids: [acme.id, "co_nohay"], person_ids: [good, bad, hidden] })
      assert.deepStrictEqual(saved.data.counts, { created: 3, updated: 0, unchanged: 0, failed: 1, not_found: 1 })
      assert.deepStrictEqual(saved.data.people.map((p) => p.status), ["created", "failed", "created"])
      assert.include(saved.data.people[1]?.error, "INVALID_EMAIL")
      assert.isString(saved.response.hint)
      const crm = yield* CrmClient
      const emails = yield* Effect.forEach(
        [saved.data.people[0], saved.data.people[2]],
        (item) =>
          Effect.map(crm.get(principal.workspaceId, "contacts", item?.crm_id ?? ""), Option.map((c) => c.properties["email"] ?? null))
      )
      assert.deepStrictEqual(emails.map(Option.getOrNull), ["ana.rojas@empresa.cl", null])
    }))

  it.effect("save: a rate limit that outlasts the retries fails the call with CrmUnavailable saying when to retry", () =>
    Effect.gen(function* () {
      const { principal } = yield* issuePrincipal("free")
      const acme = yield* insertCompany()
      const control = yield* CrmSimulatorControl
      yield* control.inject(CrmFault.Throttle({ times: 5, retryAfterSeconds: 120 }))
      const error = yield* Effect.flip(call(principal, "crm_save", { company_ids: [acme.id] }))
      yield* control.inject(CrmFault.None())
      assert.strictEqual(error._tag, "CrmUnavailable")
      if (error._tag === "CrmUnavailable") {
        assert.deepStrictEqual([error.reason, error.retryAfterSeconds], ["rate_limited", 120])
        assert.include(error.hint, "120")
      }
    }))
})

const companyName = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => Effect.map(sql<{ tradeName: string }>`SELECT trade_name FROM companies WHERE id = ${id}`, (rows) => rows[0]?.tradeName ?? null)
  )

/** The companies the simulator holds a contact linked to, read from its own table. */
const linksOf = (contactId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      Effect.map(
        sql<{ toId: string }>`SELECT to_id::text AS to_id FROM crm_sim_associations
          WHERE from_type = 'contacts' AND from_id = ${contactId}::bigint AND to_type = 'companies' ORDER BY to_id`,
        (rows) => rows.map((row) => row.toId)
      )
  )
