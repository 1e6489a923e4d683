import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import type { Schema } from "effect"
import { Effect, Layer, Redacted, TestClock } from "effect"
import { BatchResponse, CrmObject, ErrorBody, SearchResponse } from "../../../../schema/crm/Hubspot.ts"
import { CrmFault, CrmSimulatorControl, CrmSimulatorServer } from "../../../../services/simulators/crm/CrmSimulatorServer.ts"
import { CrmSimulatorStore } from "../../../../services/simulators/crm/CrmSimulatorStore.ts"
import { simulatorToken } from "../../../../services/simulators/crm/CrmToken.ts"
import { TestDatabase } from "../../../support/TestDatabase.ts"
import { uniqueName } from "../../../support/TestLayers.ts"

const secret = Redacted.make("simulator-secret-for-tests")

/** The simulator on an in-process server, built inside the test so its clock is the test's. */
const simulator = (rate = 100) =>
  CrmSimulatorServer.layer({ secret, latencyMs: 0, rate, windowSeconds: 10 }).pipe(
    Layer.provide(CrmSimulatorStore.Default),
    Layer.provideMerge(NodeHttpServer.layerTest)
  )

const send = (request: HttpClientRequest.HttpClientRequest, portal?: string) =>
  HttpClient.execute(portal === undefined ? request : HttpClientRequest.bearerToken(request, simulatorToken(secret, portal)))

const post = (path: string, body: unknown, portal?: string) =>
  send(HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post(path), body), portal)

const decoded = <A, I>(schema: Schema.Schema<A, I>) => (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(HttpClientResponse.schemaBodyJson(schema)(response), (body) => ({ status: response.status, body }))

const company = (breinId: string, properties: Record<string, string>) => ({ idProperty: "brein_id", id: breinId, properties })

const upsert = (portal: string, type: string, inputs: ReadonlyArray<unknown>) =>
  Effect.flatMap(post(`/crm/v3/objects/${type}/batch/upsert`, { inputs }, portal), decoded(BatchResponse))

const search = (portal: string, type: string, body: unknown) =>
  Effect.flatMap(post(`/crm/v3/objects/${type}/search`, body, portal), decoded(SearchResponse))

layer(TestDatabase)("CrmSimulatorServer", (it) => {
  it.effect("refuses a request without a token or with one it did not sign, in HubSpot's error shape", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.flatMap(post("/crm/v3/objects/companies/search", { filterGroups: [] }), decoded(ErrorBody))
      assert.strictEqual(missing.status, 401)
      assert.strictEqual(missing.body.category, "INVALID_AUTHENTICATION")
      const forged = HttpClientRequest.bearerToken(HttpClientRequest.get("/crm/v3/objects/companies/1"), "pat-sim-ws_other.deadbeef")
      assert.strictEqual((yield* send(forged)).status, 401)
      const log = yield* (yield* CrmSimulatorControl).log
      assert.deepStrictEqual(log.map((entry) => [entry.portal, entry.status]), [[null, 401], [null, 401]])
    }).pipe(Effect.provide(simulator())))

  it.effect("upserts by brein_id, merges properties, and searches with EQ and IN across requests", () =>
    Effect.gen(function* () {
      const portal = uniqueName("ws_p")
      const first = yield* upsert(portal, "companies", [
        company("co_1", { name: "Acme SpA", domain: "acme.cl", tax_id: "76.086.428-5", country: "CL", city: "Santiago" }),
        company("co_2", { name: "Bravo SA de CV", domain: "bravo.mx", country: "MX", city: "Monterrey" })
      ])
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual(first.body.results.map((r) => [r.properties["brein_id"], r.new]), [["co_1", true], ["co_2", true]])
      const again = yield* upsert(portal, "companies", [company("co_1", { city: "Valparaíso" })])
      assert.deepStrictEqual(again.body.results.map((r) => [r.id, r.new, r.properties["name"], r.properties["city"]]), [
        [first.body.results[0]?.id, false, "Acme SpA", "Valparaíso"]
      ])
      const byDomain = yield* search(portal, "companies", {
        filterGroups: [{ filters: [{ propertyName: "domain", operator: "EQ", value: "ACME.cl" }] }],
        properties: ["name", "city"]
      })
      assert.deepStrictEqual(byDomain.body.results.map((r) => r.properties), [{
        name: "Acme SpA",
        city: "Valparaíso",
        hs_object_id: first.body.results[0]?.id ?? ""
      }])
      const byIds = yield* search(portal, "companies", {
        filterGroups: [{ filters: [{ propertyName: "brein_id", operator: "IN", values: ["co_2", "co_9"] }] }, {
          filters: [{ propertyName: "tax_id", operator: "EQ", value: "76.086.428-5" }]
        }]
      })
      assert.deepStrictEqual([byIds.body.total, byIds.body.results.map((r) => r.properties["brein_id"])], [2, ["co_1", "co_2"]])
      const elsewhere = yield* search(uniqueName("ws_q"), "companies", { filterGroups: [] })
      assert.strictEqual(elsewhere.body.total, 0, "another portal sees none of it")
      const id = first.body.results[0]?.id ?? ""
      const read = yield* Effect.flatMap(send(HttpClientRequest.get(`/crm/v3/objects/companies/${id}`), portal), decoded(CrmObject))
      assert.strictEqual(read.body.properties["city"], "Valparaíso")
      assert.strictEqual((yield* send(HttpClientRequest.get("/crm/v3/objects/companies/999999999"), portal)).status, 404)
    }).pipe(Effect.provide(simulator())))

  it.effect("reports a bad input per record (207) and refuses malformed batches whole (400)", () =>
    Effect.gen(function* () {
      const portal = uniqueName("ws_p")
      const [acme] = (yield* upsert(portal, "companies", [company("co_1", { name: "Acme" })])).body.results
      const contacts = yield* upsert(portal, "contacts", [
        {
          idProperty: "brein_id",
          id: "pe_1",
          properties: { firstname: "Ana", email: "ana@acme.cl" },
          associations: [{ to: { id: acme?.id ?? "" }, types: [{ associationCategory: "HUBSPOT_DEFINED", associationTypeId: 1 }] }]
        },
        { idProperty: "brein_id", id: "pe_2", properties: { firstname: "Luis", email: "no es correo" } }
      ])
      assert.strictEqual(contacts.status, 207)
      assert.deepStrictEqual(contacts.body.results.map((r) => r.properties["brein_id"]), ["pe_1"])
      assert.deepStrictEqual(contacts.body.errors?.map((e) => [e.category, e.context?.["id"]]), [["VALIDATION_ERROR", ["pe_2"]]])
      const ana = yield* Effect.flatMap(
        send(HttpClientRequest.get(`/crm/v3/objects/contacts/${contacts.body.results[0]?.id ?? ""}?associations=companies`), portal),
        decoded(CrmObject)
      )
      assert.deepStrictEqual(ana.body.associations?.["companies"]?.results.map((a) => a.id), [acme?.id ?? ""])
      const tooMany = Array.from({ length: 101 }, (_, i) => company(`co_${i}`, { name: `n${i}` }))
      assert.strictEqual((yield* post("/crm/v3/objects/companies/batch/upsert", { inputs: tooMany }, portal)).status, 400)
      const twice = [company("co_5", { name: "a" }), company("co_5", { name: "b" })]
      assert.strictEqual((yield* post("/crm/v3/objects/companies/batch/upsert", { inputs: twice }, portal)).status, 400)
      const unknownProperty = yield* Effect.flatMap(
        post(
          "/crm/v3/objects/companies/search",
          { filterGroups: [{ filters: [{ propertyName: "x", operator: "EQ", value: "1" }] }] },
          portal
        ),
        decoded(ErrorBody)
      )
      assert.deepStrictEqual([unknownProperty.status, unknownProperty.body.category], [400, "VALIDATION_ERROR"])
    }).pipe(Effect.provide(simulator())))

  it.effect("answers 429 with Retry-After once a portal spends its rate, and serves it again once the bucket refills", () =>
    Effect.gen(function* () {
      const portal = uniqueName("ws_p")
      const query = { filterGroups: [] }
      const statuses = yield* Effect.forEach(
        [1, 2, 3, 4],
        () => Effect.map(post("/crm/v3/objects/companies/search", query, portal), (r) => r.status)
      )
      assert.deepStrictEqual(statuses, [200, 200, 200, 429])
      const limited = yield* post("/crm/v3/objects/companies/search", query, portal)
      assert.strictEqual(limited.headers["retry-after"], "4")
      const body = yield* HttpClientResponse.schemaBodyJson(ErrorBody)(limited)
      assert.deepStrictEqual([body.errorType, body.policyName], ["RATE_LIMIT", "TEN_SECONDLY_ROLLING"])
      const other = yield* post("/crm/v3/objects/companies/search", query, uniqueName("ws_q"))
      assert.strictEqual(other.status, 200, "the limit is per portal")
      yield* TestClock.adjust("4 seconds")
      assert.strictEqual((yield* post("/crm/v3/objects/companies/search", query, portal)).status, 200)
      const log = yield* (yield* CrmSimulatorControl).log
      assert.strictEqual(log.filter((entry) => entry.portal === portal && entry.status === 429).length, 2)
    }).pipe(Effect.provide(simulator(3))))

  it.effect("scripted faults: 5xx for the next N requests, then normal service", () =>
    Effect.gen(function* () {
      const portal = uniqueName("ws_p")
      yield* (yield* CrmSimulatorControl).inject(CrmFault.Status({ status: 502, times: 2 }))
      const statuses = yield* Effect.forEach(
        [1, 2, 3],
        () => Effect.map(post("/crm/v3/objects/contacts/search", { filterGroups: [] }, portal), (r) => r.status)
      )
      assert.deepStrictEqual(statuses, [502, 502, 200])
    }).pipe(Effect.provide(simulator())))
})
