import { HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Stream, TestClock } from "effect"
import { mailSimulated } from "../../../layers/Mail.ts"
import { MAX_PATH_PARAM } from "../../../schema/Ids.ts"
import { UnsubscribeLinks } from "../../../services/catalog/sequences/UnsubscribeLinks.ts"
import { Dispatcher } from "../../../services/sequences/Dispatcher.ts"
import { DAY, driveUntil, sentMessages, START, TestDispatchSettings } from "../../services/sequences/DispatchHarness.ts"
import { enrollmentStates, seedSequence, sendStates, suppressionsOf } from "../../services/sequences/DispatchRows.ts"
import { withFailingInserts } from "../../support/Faults.ts"
import { HttpTest, rawRequest } from "./TestServer.ts"

/** The dispatcher of the test's process: its links are the server's (the same key and public URL). */
const dispatching = Dispatcher.Default.pipe(
  Layer.provide(TestDispatchSettings),
  Layer.provideMerge(mailSimulated({ latencyMs: 0, bounceRate: 0 }))
)

const LINK = /https?:\/\/[^/\s]+(\/u\/sq_[0-9a-f]+\/pe_[0-9a-f]+\/[0-9a-f]{32})/

const FORM = "application/x-www-form-urlencoded"

const form = (path: string, body: string, contentType = FORM) =>
  rawRequest(HttpClientRequest.post(path).pipe(HttpClientRequest.bodyText(body, contentType)))

const auditRows = (sequenceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ principal: string }>`SELECT principal FROM audit_log
      WHERE tool_id = 'sequences.unsubscribe' AND chain IN (SELECT workspace_id FROM sequences WHERE id = ${sequenceId})`)

/** A sequence of two steps a day apart to one recipient, its first step sent: the link is read from the message sent. */
const sentFirstStep = Effect.gen(function* () {
  yield* TestClock.setTime(START)
  const seeded = yield* seedSequence({ recipients: ["eva@cliente.cl", null], steps: [{ delay: 0 }, { delay: 1 }] })
  yield* driveUntil(START + 60_000)
  const [first] = yield* sentMessages(seeded.grantId)
  const link = LINK.exec(first?.body ?? "")
  assert.isNotNull(link, first?.body)
  return { seeded, path: link?.[1] ?? "" }
})

layer(HttpTest)("unsubscribe links", (it) => {
  it.effect("opening the link only asks; its button (or a one-click POST) stops the enrollment and suppresses the address, once", () =>
    Effect.gen(function* () {
      const { path, seeded } = yield* sentFirstStep
      const [person] = seeded.personIds

      const page = yield* rawRequest(HttpClientRequest.get(path))
      assert.strictEqual(page.status, 200)
      assert.match(page.contentType, /^text\/html/)
      assert.include(page.text, `<form method="post">`)
      assert.include(page.text, `name="List-Unsubscribe" value="One-Click"`)
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "active" }, "opening it changed nothing")
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])

      const done = yield* form(path, "List-Unsubscribe=One-Click")
      assert.strictEqual(done.status, 200, done.text)
      assert.include(done.text, "te diste de baja")
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "unsubscribed" })
      assert.deepStrictEqual((yield* sendStates(seeded.sequenceId)).map(([, state]) => state), ["sent", "cancelled"])
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [["eva@cliente.cl", "unsubscribed"]])
      assert.deepStrictEqual((yield* auditRows(seeded.sequenceId)).map((r) => r.principal), [`recipient:${person}`])

      const again = yield* form(path, "List-Unsubscribe=One-Click")
      assert.strictEqual(again.status, 200)
      assert.lengthOf(yield* auditRows(seeded.sequenceId), 1, "a second click changes nothing")

      yield* driveUntil(START + 3 * DAY)
      assert.lengthOf(yield* sentMessages(seeded.grantId), 1, "the second step is never sent")
    }).pipe(Effect.provide(dispatching)))

  it.effect("ten one-click POSTs of one link at once stop the enrollment once: one audit row, every answer the same page", () =>
    Effect.gen(function* () {
      const { path, seeded } = yield* sentFirstStep
      const [person] = seeded.personIds
      const answers = yield* Effect.all(Array.from({ length: 10 }, () => form(path, "List-Unsubscribe=One-Click")), { concurrency: 10 })
      assert.deepStrictEqual(answers.map((answer) => answer.status), Array.from({ length: 10 }, () => 200))
      assert.isTrue(answers.every((answer) => answer.text.includes("te diste de baja")))
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "unsubscribed" })
      assert.deepStrictEqual((yield* auditRows(seeded.sequenceId)).map((r) => r.principal), [`recipient:${person}`])
    }).pipe(Effect.provide(dispatching)))

  it.effect("a mail scanner that opens the link, again and with the one-click field in the query, unsubscribes nobody", () =>
    Effect.gen(function* () {
      const { path, seeded } = yield* sentFirstStep
      const [person] = seeded.personIds
      for (const opened of [path, path, `${path}?List-Unsubscribe=One-Click`]) {
        const page = yield* rawRequest(HttpClientRequest.get(opened))
        assert.strictEqual(page.status, 200, opened)
        assert.include(page.text, "¿Dejar de recibir estos correos?")
      }
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "active" })
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])
      assert.lengthOf(yield* auditRows(seeded.sequenceId), 0)
    }).pipe(Effect.provide(dispatching)))

  it.effect("the one-click POST is a URL-encoded or multipart form carrying List-Unsubscribe=One-Click; without it, or as JSON, it changes nothing", () =>
    Effect.gen(function* () {
      const { path, seeded } = yield* sentFirstStep
      const [person] = seeded.personIds
      // with its length, as a provider sends it, or chunked
      const multipart = (fields: Record<string, string>, chunked = false) =>
        Effect.gen(function* () {
          const data = new FormData()
          for (const [name, value] of Object.entries(fields)) data.append(name, value)
          const encoded = new Response(data)
          const body = new Uint8Array(yield* Effect.promise(() => encoded.arrayBuffer()))
          const contentType = encoded.headers.get("content-type") ?? ""
          return yield* rawRequest(
            HttpClientRequest.post(path).pipe(
              chunked
                ? HttpClientRequest.bodyStream(Stream.make(body.subarray(0, 10), body.subarray(10)), { contentType })
                : HttpClientRequest.bodyUint8Array(body, contentType)
            )
          )
        })
      const json = yield* rawRequest(
        HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson({ "List-Unsubscribe": "One-Click" }))
      )
      assert.strictEqual(json.status, 415, json.text)
      const refusals = [
        yield* form(path, ""),
        yield* form(path, "unsubscribe=1"),
        yield* form(path, "List-Unsubscribe=yes"),
        yield* multipart({ unsubscribe: "1" }),
        yield* multipart({ "List-Unsubscribe": "Unsubscribe" })
      ]
      assert.deepStrictEqual(refusals.map((refused) => refused.status), [422, 422, 422, 422, 422])
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "active" }, "no refused POST unsubscribed")
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])

      const done = yield* multipart({ "List-Unsubscribe": "One-Click" }, true)
      assert.strictEqual(done.status, 200, done.text)
      assert.include(done.text, "te diste de baja")
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "unsubscribed" })
    }).pipe(Effect.provide(dispatching)))

  it.effect("every refusal on an unsubscribe link is a page in the recipient's language with its status, never an API's JSON error", () =>
    Effect.gen(function* () {
      const { path, seeded } = yield* sentFirstStep
      const [, , sequence, person] = path.split("/")
      const put = yield* rawRequest(HttpClientRequest.put(path).pipe(HttpClientRequest.bodyText("List-Unsubscribe=One-Click", FORM)))
      const cases: ReadonlyArray<readonly [string, number, { status: number; contentType: string; text: string }]> = [
        ["a link cut short", 404, yield* rawRequest(HttpClientRequest.get(`/u/${sequence}/${person}`))],
        [
          "a link with a part too long for any id",
          404,
          yield* rawRequest(HttpClientRequest.get(`/u/${sequence}/${person}/${"0".repeat(MAX_PATH_PARAM + 1)}`))
        ],
        ["a method no link takes", 405, put],
        [
          "a JSON body",
          415,
          yield* rawRequest(HttpClientRequest.post(path).pipe(HttpClientRequest.bodyUnsafeJson({ "List-Unsubscribe": "One-Click" })))
        ],
        ["a form without List-Unsubscribe=One-Click", 422, yield* form(path, "List-Unsubscribe=yes")],
        ["a multipart body that is not one", 400, yield* form(path, "--x\r\nnot a part", "multipart/form-data; boundary=x")],
        ["a body over the limit", 413, yield* form(path, `List-Unsubscribe=One-Click&x=${"a".repeat(1024 * 1024)}`)]
      ]
      for (const [what, status, answer] of cases) {
        assert.strictEqual(answer.status, status, `${what}: ${answer.text.slice(0, 200)}`)
        assert.match(answer.contentType, /^text\/html/, what)
        assert.match(answer.text, /^<!doctype html>/, what)
        assert.match(answer.text, /no se cambió nada/i, what)
      }
      assert.include(cases[4]?.[2].text, `name="List-Unsubscribe" value="One-Click"`, "a POST without the field is asked to confirm again")
      assert.deepStrictEqual(Object.values(yield* enrollmentStates(seeded.sequenceId)), ["active"])
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])
    }).pipe(Effect.provide(dispatching)))

  it.effect("a recipient with no address (never written to) gets the page and the answer, and nothing is recorded", () =>
    Effect.gen(function* () {
      const { seeded } = yield* sentFirstStep
      const write = yield* (yield* UnsubscribeLinks).writer()
      const path = new URL(write(seeded.sequenceId, seeded.personIds[1] ?? "")).pathname
      assert.strictEqual((yield* rawRequest(HttpClientRequest.get(path))).status, 200)
      const done = yield* form(path, "List-Unsubscribe=One-Click")
      assert.strictEqual(done.status, 200, done.text)
      assert.include(done.text, "te diste de baja")
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])
      assert.lengthOf(yield* auditRows(seeded.sequenceId), 0)
    }).pipe(Effect.provide(dispatching)))

  it.effect("an unsubscribe that cannot be committed is a 503 page, changes nothing, and the same link works afterwards", () =>
    Effect.gen(function* () {
      const { path, seeded } = yield* sentFirstStep
      const [person] = seeded.personIds
      // the fault: this recipient's audit row cannot be written (only theirs: other tests share the database)
      const refused = yield* form(path, "List-Unsubscribe=One-Click").pipe(
        withFailingInserts({ name: `refuse_unsubscribe_${person}`, table: "audit_log", when: `NEW.principal = 'recipient:${person}'` })
      )
      assert.strictEqual(refused.status, 503, refused.text)
      assert.match(refused.contentType, /^text\/html/)
      assert.isDefined(refused.retryAfter, "a provider's one-click POST is told when to try again")
      assert.include(refused.text, "No pudimos darte de baja en este momento")
      assert.include(refused.text, "no se cambió nada")
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "active" }, "nothing was half-written")
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])
      assert.lengthOf(yield* auditRows(seeded.sequenceId), 0)

      const done = yield* form(path, "List-Unsubscribe=One-Click")
      assert.strictEqual(done.status, 200, done.text)
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "unsubscribed" })
    }).pipe(Effect.provide(dispatching)))

  it.effect("an unsubscribe whose change fails on a transient database error is the same 503 page, and nothing is half-written", () =>
    Effect.gen(function* () {
      const { path, seeded } = yield* sentFirstStep
      const [person] = seeded.personIds
      // the fault: the suppression fails as a serialization failure would (40001, transient), inside the change
      const refused = yield* form(path, "List-Unsubscribe=One-Click").pipe(
        withFailingInserts({
          name: `conflict_unsubscribe_${seeded.workspaceId}`.toLowerCase(),
          table: "suppressions",
          when: `NEW.workspace_id = '${seeded.workspaceId}'`,
          sqlState: "40001"
        })
      )
      assert.strictEqual(refused.status, 503, refused.text)
      assert.match(refused.contentType, /^text\/html/)
      assert.isDefined(refused.retryAfter)
      assert.include(refused.text, "No pudimos darte de baja en este momento")
      assert.deepStrictEqual(yield* enrollmentStates(seeded.sequenceId), { [person ?? ""]: "active" }, "the stopped enrollment rolled back")
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])
      assert.lengthOf(yield* auditRows(seeded.sequenceId), 0)
    }).pipe(Effect.provide(dispatching)))

  it.effect("a link altered, or moved to another person, is a 404 page and changes nothing; a body that is not a form is 415", () =>
    Effect.gen(function* () {
      const { path, seeded } = yield* sentFirstStep
      const last = path.at(-1) === "0" ? "1" : "0"
      const tampered = `${path.slice(0, -1)}${last}`
      const [, , sequence, , token] = path.split("/")
      const otherPerson = `/u/${sequence}/pe_0000000000/${token}`
      for (const bad of [tampered, otherPerson, `/u/${sequence}/x/short`]) {
        // the recipient reads a page in their language, not an API's JSON error
        for (const answer of [yield* rawRequest(HttpClientRequest.get(bad)), yield* form(bad, "List-Unsubscribe=One-Click")]) {
          assert.strictEqual(answer.status, 404, bad)
          assert.match(answer.contentType, /^text\/html/, bad)
          assert.include(answer.text, "Este enlace para darse de baja no es válido")
          assert.include(answer.text, "No se cambió nada")
        }
      }
      const plain = yield* form(path, "unsubscribe me", "text/plain")
      assert.strictEqual(plain.status, 415)
      assert.match(plain.contentType, /^text\/html/)
      assert.include(plain.text, "No pudimos leer tu confirmación")
      const elsewhere = yield* form("/api/v1/connections", "a=b")
      assert.strictEqual(elsewhere.status, 415, "forms are taken on unsubscribe links only")
      assert.match(elsewhere.contentType, /^application\/json/, "an API client still reads the JSON error")
      assert.include(elsewhere.text, "must be JSON")
      assert.deepStrictEqual(Object.values(yield* enrollmentStates(seeded.sequenceId)), ["active"])
      assert.deepStrictEqual(yield* suppressionsOf(seeded.workspaceId), [])
    }).pipe(Effect.provide(dispatching)))
})
