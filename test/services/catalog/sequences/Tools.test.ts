import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option, Schema } from "effect"
import { ListSaveOutput } from "../../../../schema/catalog/Empresas.ts"
import { SequenceDefinition } from "../../../../schema/catalog/Sequences.ts"
import {
  PreflightResult,
  RecipientsSetOutput,
  SequenceCreateOutput,
  SequenceGetOutput,
  SequencePreviewOutput,
  SequenceUpdateOutput
} from "../../../../schema/catalog/SequenceTools.ts"
import { recipientsDigest } from "../../../../services/catalog/sequences/Digest.ts"
import { sequenceUpdate } from "../../../../services/catalog/sequences/EditTools.ts"
import { renderMessage } from "../../../../services/catalog/sequences/Render.ts"
import { SequenceStore } from "../../../../services/catalog/sequences/SequenceStore.ts"
import { Suppressions } from "../../../../services/catalog/sequences/Suppressions.ts"
import { UnsubscribeLinks } from "../../../../services/catalog/sequences/UnsubscribeLinks.ts"
import { waitUntil } from "../../../support/Eventually.ts"
import { commitBetween } from "../../../support/Interleave.ts"
import { as, call, definitionFor, failure, peopleWithEmail, reveal, Seeded, workspaceWithMailbox } from "./Fixtures.ts"

const created = as(SequenceCreateOutput)

layer(Seeded, { timeout: 120_000 })("secuencias tools", (it) => {
  it.effect("create answers a draft at version 1; update bumps the version and the content digest; only a draft is edited", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const first = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id)))
      assert.deepStrictEqual([first.status, first.version, first.steps], ["draft", 1, 2])
      const again = created(yield* call(principal, "sequence_update", { sequence_id: first.sequence_id, name: "Prospección Q4 v2" }))
      assert.strictEqual(again.version, 2)
      assert.notStrictEqual(again.content_digest, first.content_digest)
      assert.strictEqual(again.recipients_digest, first.recipients_digest)
      const got = as(SequenceGetOutput)(yield* call(principal, "sequence_get", { sequence_id: first.sequence_id }))
      assert.deepStrictEqual([got.definition.name, got.version, got.status, got.latest_preflight], ["Prospección Q4 v2", 2, "draft", null])
      assert.strictEqual(got.mailbox.email, "ventas@acme.example")
      assert.deepStrictEqual(
        got.delivery,
        { enrollments: {}, sends: {}, last_sent_at: null },
        "nothing is sent before a person activates it"
      )

      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE sequences SET status = 'active' WHERE id = ${first.sequence_id}`
      const refused = yield* failure(principal, "sequence_update", { sequence_id: first.sequence_id, name: "otra" })
      assert.deepStrictEqual([refused.tag, refused.reason], ["SequenceConflict", "not_draft"])
      const someone = yield* peopleWithEmail("CL", 1)
      const recipients = yield* failure(principal, "sequence_recipients_set", {
        sequence_id: first.sequence_id,
        person_ids: someone.map((p) => p.id)
      })
      assert.deepStrictEqual([recipients.tag, recipients.reason], ["SequenceConflict", "not_draft"])
      const after = as(SequenceGetOutput)(yield* call(principal, "sequence_get", { sequence_id: first.sequence_id }))
      assert.deepStrictEqual([after.version, after.definition.name], [2, "Prospección Q4 v2"])

      const duplicate = yield* failure(principal, "sequence_create", definitionFor(mailbox.id, "Prospección Q4 v2"))
      assert.deepStrictEqual([duplicate.tag, duplicate.reason], ["SequenceConflict", "duplicate_name"])
      assert.include(duplicate.message, "Prospección Q4 v2")
    }))

  it.effect("an update to what the sequence already has answers changed: false, makes no new version and can be repeated", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const definition = definitionFor(mailbox.id, "Seguimiento sin cambios")
      const first = created(yield* call(principal, "sequence_create", definition))
      const sameEdit = { sequence_id: first.sequence_id, name: definition.name, steps: definition.steps }
      for (let i = 0; i < 2; i++) {
        const again = as(SequenceUpdateOutput)(yield* call(principal, "sequence_update", sameEdit))
        assert.deepStrictEqual([again.changed, again.version, again.content_digest], [false, 1, first.content_digest])
      }
      const got = as(SequenceGetOutput)(yield* call(principal, "sequence_get", { sequence_id: first.sequence_id }))
      assert.strictEqual(got.version, 1)
      const renamed = as(SequenceUpdateOutput)(
        yield* call(principal, "sequence_update", { sequence_id: first.sequence_id, name: "Seguimiento con cambios" })
      )
      assert.deepStrictEqual([renamed.changed, renamed.version], [true, 2])
      assert.isTrue(sequenceUpdate.spec.hints.idempotent)
    }))

  it.effect("sequence names are unique ignoring case: create and rename to another's name in other case are duplicate_name", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const first = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id, "Follow Up Q4")))
      const duplicate = yield* failure(principal, "sequence_create", definitionFor(mailbox.id, "follow up q4"))
      assert.deepStrictEqual([duplicate.tag, duplicate.reason], ["SequenceConflict", "duplicate_name"])
      assert.include(duplicate.message, "Follow Up Q4")

      const second = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id, "Otra secuencia")))
      const rename = yield* failure(principal, "sequence_update", { sequence_id: second.sequence_id, name: "FOLLOW UP Q4" })
      assert.deepStrictEqual([rename.tag, rename.reason], ["SequenceConflict", "duplicate_name"])
      const own = as(SequenceUpdateOutput)(
        yield* call(principal, "sequence_update", { sequence_id: first.sequence_id, name: "follow up Q4" })
      )
      assert.deepStrictEqual([own.changed, own.version], [true, 2], "a sequence may change the case of its own name")

      // case beyond ASCII folds too (the database is UTF-8: test/layers/DatabaseEncoding.test.ts)
      created(yield* call(principal, "sequence_create", definitionFor(mailbox.id, "Campaña Ñuñoa Ó")))
      const accented = yield* failure(principal, "sequence_create", definitionFor(mailbox.id, "CAMPAÑA ÑUÑOA ó"))
      assert.deepStrictEqual([accented.tag, accented.reason], ["SequenceConflict", "duplicate_name"])

      const other = yield* workspaceWithMailbox()
      created(yield* call(other.principal, "sequence_create", definitionFor(other.mailbox.id, "FOLLOW UP Q4")))
    }))

  it.effect("bad input is refused with a typed error and nothing is written", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const other = yield* workspaceWithMailbox()
      const good = definitionFor(mailbox.id)
      const unknown = yield* failure(principal, "sequence_create", { ...good, mailbox_id: "mb_nothere" })
      assert.deepStrictEqual([unknown.tag, unknown.kind], ["SequenceNotFound", "mailbox"])
      const foreign = yield* failure(principal, "sequence_create", { ...good, mailbox_id: other.mailbox.id })
      assert.deepStrictEqual([foreign.tag, foreign.kind], ["SequenceNotFound", "mailbox"])
      const step = good.steps[0]
      const tooMany = yield* failure(principal, "sequence_create", {
        ...good,
        steps: Array.from({ length: 11 }, (_, i) => ({ ...step, id: `s${i}`, delay: i === 0 ? 0 : 1 }))
      })
      assert.deepStrictEqual([tooMany.tag, tooMany.paths], ["InvalidInput", ["input.steps"]])
      const unit = yield* failure(principal, "sequence_create", { ...good, steps: [{ ...step, delay_unit: "weeks" }] })
      assert.deepStrictEqual([unit.tag, unit.paths], ["InvalidInput", ["input.steps.0.delay_unit"]])
      const delayed = yield* failure(principal, "sequence_create", { ...good, steps: [{ ...step, delay: 2 }] })
      assert.deepStrictEqual([delayed.tag, delayed.paths], ["InvalidInput", ["input.steps.0.delay"]])
      const zone = yield* failure(principal, "sequence_create", {
        ...good,
        settings: { ...good.settings, window: { ...good.settings.window, timezone: "Mars/Base" } }
      })
      assert.deepStrictEqual([zone.tag, zone.paths], ["InvalidInput", ["input.settings.window.timezone"]])
      const missing = yield* failure(principal, "sequence_get", { sequence_id: "sq_nothere" })
      assert.deepStrictEqual([missing.tag, missing.kind], ["SequenceNotFound", "sequence"])
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM sequences WHERE workspace_id = ${principal.workspaceId}`
      assert.strictEqual(rows[0]?.n, 0)

      const theirs = created(yield* call(other.principal, "sequence_create", definitionFor(other.mailbox.id)))
      const notMine = yield* failure(principal, "sequence_get", { sequence_id: theirs.sequence_id })
      assert.strictEqual(notMine.tag, "SequenceNotFound")
    }))

  it.effect("recipients from a list: unrevealed and suppressed people are kept and reported, the digest covers them", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const seq = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id)))
      const cl = yield* peopleWithEmail("CL", 5)
      const mx = yield* peopleWithEmail("MX", 2)
      const all = [...cl, ...mx]
      yield* reveal(principal, all.slice(0, 6).map((p) => p.id))
      const suppressions = yield* Suppressions
      yield* suppressions.add(principal.workspaceId, all[0]?.email ?? "", "unsubscribed", "test")
      const blockedDomain = (all[1]?.email ?? "").slice((all[1]?.email ?? "").indexOf("@"))
      yield* suppressions.add(principal.workspaceId, blockedDomain, "blocked_domain", "test")
      const list = as(ListSaveOutput)(yield* call(principal, "list_save", { name: "objetivo", kind: "people", ids: all.map((p) => p.id) }))

      const response = yield* call(principal, "sequence_recipients_set", {
        sequence_id: seq.sequence_id,
        list_id: list.list_id,
        lawful_basis: "legitimate_interest"
      })
      const set = as(RecipientsSetOutput)(response)
      const sameDomain = all.filter((p) => p.email.endsWith(blockedDomain) && p !== all[0] && all.indexOf(p) < 6).length
      assert.strictEqual(set.total, 7)
      assert.strictEqual(set.no_email, 1)
      assert.strictEqual(set.suppressed, 1 + sameDomain)
      assert.strictEqual(set.sendable, 6 - 1 - sameDomain)
      assert.strictEqual(set.version, 2)
      assert.deepStrictEqual(set.by_country, { CL: 5, MX: 2 })
      assert.deepStrictEqual(set.excluded.find((e) => e.person_id === all[0]?.id)?.reason, "unsubscribed")
      assert.deepStrictEqual(set.excluded.find((e) => e.person_id === all[1]?.id)?.reason, "blocked_domain")
      assert.deepStrictEqual(set.excluded.find((e) => e.person_id === all[6]?.id), {
        person_id: all[6]?.id ?? "",
        full_name: set.excluded.find((e) => e.person_id === all[6]?.id)?.full_name ?? "",
        email: null,
        reason: "no_email"
      })
      assert.strictEqual(set.source, `list:${list.list_id} (objetivo)`)
      const revealAction = response.next_actions?.find((a) => a.tool === "people_reveal")
      assert.deepStrictEqual(revealAction?.input, { person_ids: [all[6]?.id] })

      const stored = yield* (yield* SequenceStore).recipients(seq.sequence_id)
      assert.deepStrictEqual(stored.map((r) => r.personId), all.map((p) => p.id))
      assert.strictEqual(recipientsDigest(stored), set.recipients_digest)
      assert.isTrue(stored.every((r) => r.lawfulBasis === "legitimate_interest"))
      assert.strictEqual(stored[0]?.fields["first_name"]?.length !== 0, true)

      const other = yield* workspaceWithMailbox()
      const foreignList = yield* failure(other.principal, "sequence_recipients_set", {
        sequence_id: created(yield* call(other.principal, "sequence_create", definitionFor(other.mailbox.id))).sequence_id,
        list_id: list.list_id
      })
      assert.deepStrictEqual([foreignList.tag, foreignList.kind], ["RecordNotFound", "list"])
    }))

  it.effect("recipients without an email: people_reveal is suggested only for those not revealed yet", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const seq = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id)))
      const sql = yield* SqlClient.SqlClient
      const noneOnFile = yield* sql<{ id: string }>`SELECT id FROM people WHERE email IS NULL AND country = 'CL' ORDER BY id LIMIT 2`
      const unrevealed = yield* peopleWithEmail("CL", 1)
      assert.strictEqual(noneOnFile.length, 2, "the seeded directory has people without an email on file")
      yield* reveal(principal, noneOnFile.map((p) => p.id))
      const ids = [...noneOnFile, ...unrevealed].map((p) => p.id)

      const response = yield* call(principal, "sequence_recipients_set", {
        sequence_id: seq.sequence_id,
        person_ids: ids,
        lawful_basis: "legitimate_interest"
      })
      const set = as(RecipientsSetOutput)(response)
      assert.deepStrictEqual([set.total, set.no_email, set.sendable], [3, 3, 0])
      const revealAction = response.next_actions?.find((a) => a.tool === "people_reveal")
      assert.deepStrictEqual(revealAction?.input, { person_ids: [unrevealed[0]?.id] }, "revealing again finds no email")
      assert.strictEqual(revealAction?.reason, "1 recipient(s) have no revealed email")
      assert.deepStrictEqual(response.warnings, [
        "2 recipient(s) were revealed but the directory has no email for them: they are kept and never written to"
      ])

      yield* reveal(principal, unrevealed.map((p) => p.id))
      const again = yield* call(principal, "sequence_recipients_set", {
        sequence_id: seq.sequence_id,
        person_ids: ids,
        lawful_basis: "legitimate_interest"
      })
      assert.isUndefined(again.next_actions?.find((a) => a.tool === "people_reveal"), "every one without an email was revealed")
    }))

  it.effect("recipients from ids: an unknown id changes nothing", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const seq = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id)))
      const people = yield* peopleWithEmail("CL", 3)
      yield* reveal(principal, people.map((p) => p.id))
      const ids = people.map((p) => p.id)
      const set = as(RecipientsSetOutput)(
        yield* call(principal, "sequence_recipients_set", {
          sequence_id: seq.sequence_id,
          person_ids: [...ids, ids[0]],
          lawful_basis: "consent"
        })
      )
      assert.deepStrictEqual([set.total, set.sendable, set.duplicates_removed, set.source], [3, 3, 1, "brein directory (people ids)"])
      const refused = yield* failure(principal, "sequence_recipients_set", {
        sequence_id: seq.sequence_id,
        person_ids: ["pe_unknown1", ids[0]]
      })
      assert.strictEqual(refused.tag, "RecordNotFound")
      const got = as(SequenceGetOutput)(yield* call(principal, "sequence_get", { sequence_id: seq.sequence_id }))
      assert.deepStrictEqual([got.version, got.recipients_digest, got.recipients.total], [set.version, set.recipients_digest, 3])
    }))

  it.effect("preview is deterministic, equals renderMessage and reports missing variables, unresolved tokens and empty subjects", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const base = definitionFor(mailbox.id)
      const seq = created(yield* call(principal, "sequence_create", base))
      const people = yield* peopleWithEmail("CL", 5)
      yield* reveal(principal, people.slice(0, 4).map((p) => p.id))
      yield* call(principal, "sequence_recipients_set", {
        sequence_id: seq.sequence_id,
        person_ids: people.map((p) => p.id),
        lawful_basis: "consent"
      })
      yield* call(principal, "sequence_update", {
        sequence_id: seq.sequence_id,
        steps: [base.steps[0], { ...base.steps[1], subject: "", body: "Escribo a {{email}} {{frist_name}} {{unsubscribe}}", variants: [] }]
      })
      const input = { sequence_id: seq.sequence_id, limit: 3 }
      const first = as(SequencePreviewOutput)(yield* call(principal, "sequence_preview", input))
      const twice = as(SequencePreviewOutput)(yield* call(principal, "sequence_preview", input))
      assert.deepStrictEqual(first, twice)
      assert.strictEqual(first.messages.length, 6)
      assert.strictEqual(first.total_recipients, 5)
      const next = as(SequencePreviewOutput)(yield* call(principal, "sequence_preview", { ...input, cursor: first.cursor }))
      assert.strictEqual(next.messages.length, 4)
      assert.isNull(next.cursor)
      const messages = [...first.messages, ...next.messages]
      assert.deepStrictEqual([...new Set(messages.map((m) => m.recipient_id))], people.map((p) => p.id))

      const definition = Schema.decodeUnknownSync(SequenceDefinition)(
        as(SequenceGetOutput)(yield* call(principal, "sequence_get", { sequence_id: seq.sequence_id })).definition
      )
      const stored = yield* (yield* SequenceStore).recipients(seq.sequence_id)
      const unsubscribe = yield* (yield* UnsubscribeLinks).writer()
      for (const m of messages) {
        const step = definition.steps.find((s) => s.id === m.step_id)
        const r = stored.find((s) => s.personId === m.recipient_id)
        assert.isDefined(step)
        assert.isDefined(r)
        if (step === undefined || r === undefined) continue
        const rendered = renderMessage({
          sequenceId: seq.sequence_id,
          step,
          recipient: { id: r.personId, fields: r.fields },
          settings: definition.settings,
          unsubscribe
        })
        assert.deepStrictEqual([m.subject, m.body, m.variant, m.missing, m.unresolved, m.links], [
          rendered.subject,
          rendered.body,
          rendered.variant,
          rendered.missing,
          rendered.unresolved,
          rendered.links
        ])
      }
      const second = messages.filter((m) => m.step_id === "s2")
      assert.isTrue(second.every((m) => m.empty_subject && m.unresolved.includes("{{frist_name}}")))
      assert.deepStrictEqual(second.filter((m) => m.missing.includes("email")).map((m) => m.recipient_id), [people[4]?.id])
      assert.strictEqual(second.find((m) => m.recipient_id === people[4]?.id)?.sendable, false)
      assert.deepStrictEqual([first.empty_subjects, first.with_unresolved], [3, 3])
      const one = as(SequencePreviewOutput)(yield* call(principal, "sequence_preview", { ...input, step_id: "s1" }))
      assert.isTrue(one.messages.every((m) => m.step_id === "s1"))
      const wrongStep = yield* failure(principal, "sequence_preview", { ...input, step_id: "s9" })
      assert.deepStrictEqual([wrongStep.tag, wrongStep.paths], ["InvalidInput", ["input.step_id"]])
    }))

  it.effect("preflight stores its result with the version and both digests; a blocker makes it not ok", () =>
    Effect.gen(function* () {
      const { principal, mailbox } = yield* workspaceWithMailbox({ dmarc: false })
      const seq = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id)))
      const cl = yield* peopleWithEmail("CL", 2)
      const mx = yield* peopleWithEmail("MX", 1)
      const ids = [...cl, ...mx].map((p) => p.id)
      yield* reveal(principal, ids)
      const set = as(RecipientsSetOutput)(
        yield* call(principal, "sequence_recipients_set", {
          sequence_id: seq.sequence_id,
          person_ids: ids,
          lawful_basis: "legitimate_interest"
        })
      )
      const passed = as(PreflightResult)(yield* call(principal, "sequence_preflight", { sequence_id: seq.sequence_id }))
      assert.deepStrictEqual(passed.blockers, [])
      assert.isTrue(passed.ok)
      assert.deepStrictEqual(passed.warnings.map((w) => w.rule), ["sender_identity"])
      assert.deepStrictEqual([passed.version, passed.recipients_digest], [set.version, set.recipients_digest])

      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ version: number; contentDigest: string; recipientsDigest: string; ok: boolean; rulesetVersion: string }>`
        SELECT version, content_digest, recipients_digest, ok, ruleset_version FROM sequence_preflights WHERE id = ${passed.preflight_id}`
      assert.deepStrictEqual(rows[0], {
        version: passed.version,
        contentDigest: passed.content_digest,
        recipientsDigest: passed.recipients_digest,
        ok: true,
        rulesetVersion: passed.ruleset_version
      })

      yield* call(principal, "sequence_update", {
        sequence_id: seq.sequence_id,
        settings: { ...definitionFor(mailbox.id).settings, spacing_seconds: 5 }
      })
      const blocked = as(PreflightResult)(yield* call(principal, "sequence_preflight", { sequence_id: seq.sequence_id }))
      assert.isFalse(blocked.ok)
      assert.deepStrictEqual(blocked.blockers.map((b) => b.rule), ["volume"])
      assert.strictEqual(blocked.version, passed.version + 1)
      const got = as(SequenceGetOutput)(yield* call(principal, "sequence_get", { sequence_id: seq.sequence_id }))
      assert.deepStrictEqual(got.latest_preflight, blocked)
    }))
})

// Real time: the test waits on PostgreSQL's locks.
layer(Seeded, { timeout: 120_000, excludeTestServices: true })("secuencias tools beside an edit in flight", (it) => {
  it.effect("preflight waits for an edit of the recipients in flight and checks the version it leaves", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const seq = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id)))
      const people = yield* peopleWithEmail("CL", 4)
      yield* reveal(principal, people.map((p) => p.id))
      const setTo = (ids: ReadonlyArray<string>) =>
        Effect.map(
          call(principal, "sequence_recipients_set", {
            sequence_id: seq.sequence_id,
            person_ids: ids,
            lawful_basis: "legitimate_interest"
          }),
          as(RecipientsSetOutput)
        )
      const before = yield* setTo(people.slice(0, 2).map((p) => p.id))

      // Fault injection: this sequence's new recipients wait, mid-edit, for a lock the test holds.
      const trigger = `pause_recipients_${seq.sequence_id}`
      yield* sql.unsafe(`CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.sequence_id = '${seq.sequence_id}' THEN PERFORM pg_advisory_xact_lock(4242); END IF; RETURN NEW; END $$`)
      yield* sql.unsafe(`CREATE TRIGGER ${trigger} BEFORE INSERT ON sequence_recipients FOR EACH ROW EXECUTE FUNCTION ${trigger}()`)
      const release = yield* Deferred.make<void>()
      // whatever happens, the edit is let go before the trigger is dropped (a drop waits for it)
      const cleanUp = Effect.zipRight(
        Deferred.succeed(release, undefined),
        sql.unsafe(`DROP TRIGGER ${trigger} ON sequence_recipients; DROP FUNCTION ${trigger}()`).pipe(Effect.orDie)
      )
      yield* Effect.gen(function* () {
        const held = yield* Effect.fork(
          sql.withTransaction(Effect.zipRight(sql`SELECT pg_advisory_xact_lock(4242)`, Deferred.await(release)))
        )
        yield* waitUntil(
          sql`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted`,
          (rows) => rows.length > 0,
          {
            what: "the test's lock"
          }
        )
        const waiting = (event: "advisory" | "a row") =>
          sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND ${event === "advisory" ? sql`wait_event = 'advisory'` : sql`wait_event <> 'advisory'`}`
        const edit = yield* Effect.fork(setTo(people.slice(2).map((p) => p.id)))
        yield* waitUntil(waiting("advisory"), (rows) => rows.length > 0, { what: "the edit waiting mid-way" })

        const preflight = yield* Effect.fork(
          Effect.map(call(principal, "sequence_preflight", { sequence_id: seq.sequence_id }), as(PreflightResult))
        )
        // the preflight reaches the sequence the edit holds and waits there, or (were it not to) answers
        yield* waitUntil(
          Effect.zip(waiting("a row"), Fiber.poll(preflight)),
          ([rows, answered]) => rows.length > 0 || Option.isSome(answered),
          { what: "the preflight waiting on the edit" }
        )
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(held)
        const after = yield* Fiber.join(edit)
        const checked = yield* Fiber.join(preflight)
        assert.strictEqual(after.version, before.version + 1)
        assert.deepStrictEqual([checked.version, checked.recipients_digest], [after.version, after.recipients_digest])
      }).pipe(Effect.ensuring(cleanUp))
    }), { timeout: 60_000 })

  it.effect("preview and get read one version: an edit committing between their reads is not half seen", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { principal, mailbox } = yield* workspaceWithMailbox()
      const people = yield* peopleWithEmail("CL", 3)
      const withRecipients = (name: string) =>
        Effect.gen(function* () {
          const seq = created(yield* call(principal, "sequence_create", definitionFor(mailbox.id, name)))
          return as(RecipientsSetOutput)(
            yield* call(principal, "sequence_recipients_set", { sequence_id: seq.sequence_id, person_ids: people.map((p) => p.id) })
          )
        })
      // Fault injection: the read's recipients wait for a lock the test holds; meanwhile an edit, made in the
      // lock's transaction, commits the next version without the last two recipients.
      const besideAnEdit = <A, E, R>(sequenceId: string, read: Effect.Effect<A, E, R>) =>
        commitBetween({
          table: "sequence_recipients",
          waitsAt: "SELECT position, person_id",
          what: "the read waiting for the recipients",
          write: Effect.zipRight(
            sql`UPDATE sequences SET version = version + 1 WHERE id = ${sequenceId}`,
            sql`DELETE FROM sequence_recipients WHERE sequence_id = ${sequenceId} AND position > 1`
          )
        })(read)

      const previewed = yield* withRecipients("Vista durante una edición")
      const page = as(SequencePreviewOutput)(
        yield* besideAnEdit(previewed.sequence_id, call(principal, "sequence_preview", { sequence_id: previewed.sequence_id }))
      )
      assert.deepStrictEqual([page.version, page.recipients_digest], [previewed.version, previewed.recipients_digest])
      assert.strictEqual(page.total_recipients, 3, "the total of the version the page names")
      assert.deepStrictEqual(
        [...new Set(page.messages.map((m) => m.recipient_id))],
        people.map((p) => p.id),
        "the recipients of the version the page names"
      )

      const got = yield* withRecipients("Ficha durante una edición")
      const sheet = as(SequenceGetOutput)(
        yield* besideAnEdit(got.sequence_id, call(principal, "sequence_get", { sequence_id: got.sequence_id }))
      )
      assert.deepStrictEqual([sheet.version, sheet.recipients_digest], [got.version, got.recipients_digest])
      assert.strictEqual(sheet.recipients.total, 3, "the recipients of the version the sheet names")
    }), { timeout: 60_000 })
})
